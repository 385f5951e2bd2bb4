"""The SigV4 presigner: AWS's published example, and byte-for-byte agreement with botocore."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore import auth as botocore_auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from rk.plugins.s4_storage.sigv4 import Credentials, presign

EXAMPLE = Credentials(
    access_key_id="AKIAIOSFODNN7EXAMPLE",
    secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
)
MOMENT = datetime(2013, 5, 24, tzinfo=UTC)


def test_matches_the_aws_documentation_example() -> None:
    """The GET example of AWS's "Authenticating Requests: Using Query Parameters" page."""
    url = presign(
        "GET",
        "https://examplebucket.s3.amazonaws.com/test.txt",
        credentials=EXAMPLE,
        region="us-east-1",
        expires_s=86400,
        now=MOMENT,
    )
    query = parse_qs(urlsplit(url).query)
    assert query["X-Amz-Signature"] == [
        "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
    ]
    assert query["X-Amz-Credential"] == ["AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"]


def _botocore_presign(
    monkeypatch: pytest.MonkeyPatch,
    method: str,
    url: str,
    creds: Credentials,
    region: str,
    expires_s: int,
    headers: dict[str, str],
) -> str:
    monkeypatch.setattr(botocore_auth, "get_current_datetime", lambda: MOMENT.replace(tzinfo=None))
    request = AWSRequest(method=method, url=url, headers=headers)
    signer = botocore_auth.S3SigV4QueryAuth(
        BotoCredentials(creds.access_key_id, creds.secret_access_key, creds.session_token or None),
        "s3",
        region,
        expires=expires_s,
    )
    signer.add_auth(request)
    return str(request.url)


@pytest.mark.parametrize(
    ("url", "token"),
    [
        ("http://127.0.0.1:9000/bucket/media/runway/" + "a" * 40 + ".jpg", ""),
        ("https://s3.eu-west-3.amazonaws.com/bkt/thumb/" + "0" * 40 + ".jpg", "FwoGZXIvYXdzE//x+="),
    ],
)
def test_agrees_with_botocore_including_signed_headers(
    monkeypatch: pytest.MonkeyPatch, url: str, token: str
) -> None:
    creds = Credentials(access_key_id="AKID", secret_access_key="secret/+key", session_token=token)
    headers = {"x-amz-checksum-sha1": "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=", "content-type": "image/jpeg"}
    ours = presign(
        "PUT",
        url,
        credentials=creds,
        region="eu-west-3",
        expires_s=900,
        headers=headers,
        now=MOMENT,
    )
    theirs = _botocore_presign(monkeypatch, "PUT", url, creds, "eu-west-3", 900, headers)
    assert urlsplit(ours)._replace(query="") == urlsplit(theirs)._replace(query="")
    assert parse_qs(urlsplit(ours).query) == parse_qs(urlsplit(theirs).query)
    signed = parse_qs(urlsplit(ours).query)["X-Amz-SignedHeaders"]
    assert signed == ["content-type;host;x-amz-checksum-sha1"]


def test_a_different_header_value_gives_a_different_signature() -> None:
    url = "http://127.0.0.1:9000/b/k.jpg"

    def sig(value: str) -> list[str]:
        signed = presign(
            "PUT",
            url,
            credentials=EXAMPLE,
            region="us-east-1",
            expires_s=60,
            headers={"x-amz-checksum-sha1": value},
            now=MOMENT,
        )
        return parse_qs(urlsplit(signed).query)["X-Amz-Signature"]

    assert sig("AAAA") != sig("AAAB")


@pytest.mark.parametrize("expires_s", [0, 7 * 24 * 3600 + 1])
def test_expiry_outside_what_s3_accepts_is_refused(expires_s: int) -> None:
    with pytest.raises(ValueError, match="expires_s"):
        presign("GET", "https://h/b/k", credentials=EXAMPLE, region="r", expires_s=expires_s)
