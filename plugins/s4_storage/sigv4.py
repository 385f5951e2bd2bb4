"""A minimal AWS Signature Version 4 query-string presigner for S3 (hashlib + hmac only).

Why it exists: ``obstore.sign`` signs only the ``host`` header, so a URL it presigns
for ``PUT`` accepts any body. rk's keys are content addressed, so a leaked upload URL
must not be able to write other bytes under a content key. This signer adds extra
signed headers (``x-amz-checksum-sha1``, ``content-type``); S3 then refuses a request
whose headers differ from the signed ones, and verifies the body against the
``x-amz-checksum-sha1`` value (400 BadDigest otherwise). It follows AWS's published
algorithm ("Authenticating Requests: Using Query Parameters") and is checked against
AWS's example signature and botocore's presigner in the tests.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from msgspec import Struct

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
MAX_EXPIRES_S = 7 * 24 * 3600


class Credentials(Struct, frozen=True, kw_only=True):
    """An access key pair, plus the session token of temporary credentials."""

    access_key_id: str
    secret_access_key: str
    session_token: str = ""


def _encode(value: str) -> str:
    """RFC 3986 encoding as SigV4 wants it: only ``A-Za-z0-9-_.~`` stay as they are."""
    return quote(value, safe="-_.~")


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def signing_key(secret_access_key: str, date: str, region: str, service: str = "s3") -> bytes:
    """The derived key for one day, region and service."""
    key = _hmac(f"AWS4{secret_access_key}".encode(), date)
    key = _hmac(key, region)
    key = _hmac(key, service)
    return _hmac(key, "aws4_request")


def presign(
    method: str,
    url: str,
    *,
    credentials: Credentials,
    region: str,
    expires_s: int,
    headers: dict[str, str] | None = None,
    now: datetime | None = None,
) -> str:
    """``url`` with SigV4 query parameters that allow ``method`` with exactly ``headers``.

    ``url`` is the object's path-style or virtual-hosted URL with its path already
    encoded (rk keys are plain ASCII). The host header is always signed; every header in
    ``headers`` is signed too and must be sent verbatim by whoever uses the URL.
    """
    if not 1 <= expires_s <= MAX_EXPIRES_S:
        raise ValueError(f"expires_s must be 1..{MAX_EXPIRES_S}, got {expires_s}")
    parts = urlsplit(url)
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    amz_date = moment.strftime("%Y%m%dT%H%M%SZ")
    scope = f"{moment:%Y%m%d}/{region}/s3/aws4_request"
    signed = {"host": parts.netloc}
    signed.update(
        {name.lower(): " ".join(value.split()) for name, value in (headers or {}).items()}
    )
    names = sorted(signed)
    params = {
        "X-Amz-Algorithm": ALGORITHM,
        "X-Amz-Credential": f"{credentials.access_key_id}/{scope}",
        "X-Amz-Date": amz_date,
        "X-Amz-Expires": str(expires_s),
        "X-Amz-SignedHeaders": ";".join(names),
    }
    if credentials.session_token:
        params["X-Amz-Security-Token"] = credentials.session_token
    query = "&".join(f"{_encode(k)}={_encode(v)}" for k, v in sorted(params.items()))
    canonical_request = "\n".join(
        [
            method.upper(),
            parts.path or "/",
            query,
            "".join(f"{name}:{signed[name]}\n" for name in names),
            ";".join(names),
            UNSIGNED_PAYLOAD,
        ]
    )
    string_to_sign = "\n".join(
        [ALGORITHM, amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    key = signing_key(credentials.secret_access_key, f"{moment:%Y%m%d}", region)
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{query}&X-Amz-Signature={signature}"
