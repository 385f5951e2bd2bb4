"""s3:// specifics: what the presigned URLs sign, configuration errors, and S3 being down.

moto accepts any signature, so a successful PUT to moto proves little about signing;
here the signed URL itself is checked, and its signature recomputed with botocore.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore import auth as botocore_auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from rk.core.api.errors import ConfigError
from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.api.storage import StorageContext
from rk.core.runtime.client import BackendClient
from rk.plugins.s4_storage.store import ObjectStoreStorage
from tests.integration.storage.helpers import new_bucket, run_moto, s3_url

BODY = b"\xff\xd8 street style bytes"
SHA1 = sha1_hex(BODY)
KEY = content_key("street", SHA1)
AWS_VARS = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
]


@pytest.fixture(autouse=True)
def _no_aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in AWS_VARS:
        monkeypatch.delenv(name, raising=False)


def _open(url: str) -> ObjectStoreStorage:
    return ObjectStoreStorage(url, StorageContext(secret="unused for s3"))


def _botocore_signature(
    monkeypatch: pytest.MonkeyPatch, url: str, headers: dict[str, str], region: str
) -> str:
    """botocore's signature for the same request, at the moment the URL says it was signed."""
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    moment = datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ")
    key_id = query["X-Amz-Credential"].split("/")[0]
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    request = AWSRequest(method="PUT", url=base, headers=headers)
    signer = botocore_auth.S3SigV4QueryAuth(
        Credentials(key_id, "testing"), "s3", region, expires=int(query["X-Amz-Expires"])
    )
    monkeypatch.setattr(botocore_auth, "get_current_datetime", lambda: moment)
    signer.add_auth(request)
    return parse_qs(urlsplit(str(request.url)).query)["X-Amz-Signature"][0]


async def test_presigned_put_binds_key_method_expiry_and_checksum(
    moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = new_bucket(moto_endpoint)
    storage = _open(s3_url(moto_endpoint, bucket))
    upload = await storage.presign_put(KEY, len(BODY), SHA1, 900)
    parts = urlsplit(upload.url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert f"{parts.scheme}://{parts.netloc}" == moto_endpoint
    assert parts.path == f"/{bucket}/media/{KEY}"
    assert upload.method == "PUT"
    assert query["X-Amz-Expires"] == "900"
    assert query["X-Amz-Credential"].startswith("testing/")
    assert query["X-Amz-Credential"].endswith("/us-east-1/s3/aws4_request")
    assert query["X-Amz-SignedHeaders"] == "content-type;host;if-none-match;x-amz-checksum-sha1"
    checksum = base64.b64encode(hashlib.sha1(BODY).digest()).decode()
    assert upload.headers == {
        "content-type": "image/jpeg",
        "if-none-match": "*",
        "x-amz-checksum-sha1": checksum,
    }
    assert query["X-Amz-Signature"] == _botocore_signature(
        monkeypatch, upload.url, upload.headers, "us-east-1"
    )
    other = dict(upload.headers, **{"x-amz-checksum-sha1": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="})
    assert query["X-Amz-Signature"] != _botocore_signature(
        monkeypatch, upload.url, other, "us-east-1"
    )
    overwriting = {k: v for k, v in upload.headers.items() if k != "if-none-match"}
    assert query["X-Amz-Signature"] != _botocore_signature(
        monkeypatch, upload.url, overwriting, "us-east-1"
    )


async def test_presigned_get_and_public_base_url(moto_endpoint: str) -> None:
    bucket = new_bucket(moto_endpoint)
    signed = _open(s3_url(moto_endpoint, bucket))
    await signed.put(KEY, BODY)
    url = await signed.url_for(KEY, 120)
    query = parse_qs(urlsplit(url).query)
    assert urlsplit(url).path == f"/{bucket}/media/{KEY}"
    assert query["X-Amz-Expires"] == ["120"]
    public = _open(s3_url(moto_endpoint, bucket, "public_base_url=https://cdn.example/m/"))
    assert await public.url_for(KEY, 120) == f"https://cdn.example/m/{KEY}"


async def test_credentials_from_the_environment(
    moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "envkey")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    bucket = new_bucket(moto_endpoint)
    storage = _open(f"s3://{bucket}")
    await storage.put(KEY, BODY)
    assert await storage.get(KEY) == BODY
    upload = await storage.presign_put(KEY, len(BODY), SHA1, 60)
    assert "envkey%2F" in upload.url
    assert "%2Feu-west-3%2Fs3%2F" in upload.url
    assert upload.url.startswith(f"{moto_endpoint}/{bucket}/{KEY}?")


def test_no_credentials_is_a_config_error_not_a_metadata_lookup() -> None:
    with pytest.raises(ConfigError, match="no credentials"):
        _open("s3://bucket/prefix?endpoint=http://127.0.0.1:9")


async def test_anonymous_store_sends_unsigned_requests(moto_endpoint: str) -> None:
    bucket = new_bucket(moto_endpoint)
    storage = _open(f"s3://{bucket}/media?endpoint={moto_endpoint}&anonymous=true")
    await storage.put(KEY, BODY)
    assert await _open(s3_url(moto_endpoint, bucket)).get(KEY) == BODY
    upload = await storage.presign_put(KEY, len(BODY), SHA1, 60)
    assert "X-Amz-Signature" not in upload.url


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("s3://b/p?endpoint=http://h&access_key_id=a&secret_access_key=b&regoin=x", "regoin"),
        ("s3://b?endpoint=ftp://h&anonymous=true", "http"),
        ("s3://b?anonymous=maybe", "anonymous"),
        ("s3:///nobucket", "s3://bucket"),
        ("s3://b?anonymous=true&max_retries=lots", "max_retries"),
    ],
)
def test_bad_url_is_a_config_error(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _open(url)


async def test_storage_down_raises_so_the_caller_can_retry() -> None:
    with run_moto() as endpoint:
        bucket = new_bucket(endpoint)
        storage = _open(s3_url(endpoint, bucket, "max_retries=1"))
        await storage.put(KEY, BODY)
    with pytest.raises(OSError, match="could not put") as failure:
        await storage.put(KEY, BODY)
    assert not isinstance(failure.value, FileNotFoundError)
    assert "\n" not in str(failure.value)
    with pytest.raises(OSError, match="could not head"):
        await storage.head(KEY)
    with pytest.raises(OSError, match="could not get"):
        await storage.get(KEY)


async def test_a_spider_put_to_an_existing_key_writes_nothing_and_is_no_error(
    moto_endpoint: str,
) -> None:
    storage = _open(s3_url(moto_endpoint, new_bucket(moto_endpoint)))
    thumb = thumb_key(SHA1)
    await storage.put(thumb, b"the real thumbnail")
    html = b"<html>replaced</html>"
    upload = await storage.presign_put(thumb, len(html), sha1_hex(html), 900)
    client = BackendClient("http://127.0.0.1:9/admin/internal/ingest", "secret")
    try:
        await client.put_object(upload, html)
    finally:
        await client.aclose()
    assert await storage.get(thumb) == b"the real thumbnail"
