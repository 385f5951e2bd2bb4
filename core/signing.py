"""HMAC-SHA256 request signing for the spider ⇄ backend protocol.

The signed message is ``METHOD\\nPATH\\nTIMESTAMP\\nsha256_hex(body)``. PATH is the URL
path plus ``?query`` when there is one, so query parameters cannot be altered either.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time

from rk.core.errors import SignatureError

TIMESTAMP_HEADER = "X-RK-Timestamp"
SIGNATURE_HEADER = "X-RK-Signature"
DEFAULT_SKEW_S = 300
_DIGITS = re.compile(r"[1-9][0-9]{0,11}")
"""One spelling per instant: no sign, space, underscore or leading zero can vary a signature."""


def _key(secret: str | bytes) -> bytes:
    return secret.encode() if isinstance(secret, str) else secret


def signature(secret: str | bytes, method: str, path: str, timestamp: int, body: bytes) -> str:
    """Hex HMAC-SHA256 of the canonical request."""
    message = "\n".join(
        [method.upper(), path, str(timestamp), hashlib.sha256(body).hexdigest()]
    ).encode()
    return hmac.new(_key(secret), message, hashlib.sha256).hexdigest()


def signed_headers(
    secret: str | bytes, method: str, path: str, body: bytes, now: int | None = None
) -> dict[str, str]:
    """The two headers that sign a request made now (or at ``now``)."""
    timestamp = int(time.time()) if now is None else now
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, method, path, timestamp, body),
    }


def verify(
    secret: str | bytes,
    method: str,
    path: str,
    timestamp: str | None,
    sig: str | None,
    body: bytes,
    *,
    now: int | None = None,
    skew_s: int = DEFAULT_SKEW_S,
) -> None:
    """Raise SignatureError with a one-line reason unless the request is signed correctly."""
    if not timestamp or not sig:
        raise SignatureError(f"missing {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    if not _DIGITS.fullmatch(timestamp):
        raise SignatureError(f"{TIMESTAMP_HEADER} is not unix seconds (plain decimal digits)")
    ts = int(timestamp)
    current = int(time.time()) if now is None else now
    if abs(current - ts) > skew_s:
        raise SignatureError(
            f"timestamp is {current - ts:+d} s off the server clock (allowed ±{skew_s} s)"
        )
    expected = signature(secret, method, path, ts, body)
    if not hmac.compare_digest(expected.encode(), sig.strip().lower().encode()):
        raise SignatureError("signature does not match (is the ingest secret the same on both?)")
