"""Signed media upload URLs: what the store signs is exactly what the route accepts."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from rk.core.api.errors import ConfigError, InvalidKey, SignatureError
from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.media_urls import (
    ReadExpired,
    UploadExpired,
    check_upload_target,
    media_url,
    read_signature,
    read_url,
    upload_signature,
    upload_url,
    verify_read,
    verify_upload,
)

SECRET = "s3cret"
BODY = b"\xff\xd8 a jpeg body"
SHA1 = sha1_hex(BODY)
KEY = content_key("runway", SHA1)


def _split(url: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(url)
    return parts.path, dict(parse_qsl(parts.query))


def test_upload_url_carries_key_size_sha1_and_expiry() -> None:
    url = upload_url("http://backend:8092/", SECRET, KEY, len(BODY), SHA1, 1_000)
    path, query = _split(url)
    assert url.startswith("http://backend:8092/media/upload/")
    assert path == f"/media/upload/{KEY}"
    assert query["size"] == str(len(BODY))
    assert query["sha1"] == SHA1
    assert query["expires"] == "1000"
    assert query["sig"] == upload_signature(SECRET, KEY, len(BODY), SHA1, 1_000)


def test_verify_accepts_what_was_signed() -> None:
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    grant = verify_upload(SECRET, KEY, query, now=999)
    assert (grant.key, grant.size, grant.sha1, grant.expires) == (KEY, len(BODY), SHA1, 1_000)


@pytest.mark.parametrize(
    ("field", "value"),
    [("size", "999"), ("expires", "5000"), ("sig", "0" * 64)],
)
def test_any_changed_parameter_breaks_the_signature(field: str, value: str) -> None:
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    query[field] = value
    with pytest.raises(SignatureError, match="does not match"):
        verify_upload(SECRET, KEY, query, now=999)


def test_signature_is_bound_to_the_key() -> None:
    other_body = b"other bytes"
    other_key = content_key("runway", sha1_hex(other_body))
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    query["sha1"] = sha1_hex(other_body)
    with pytest.raises(SignatureError, match="does not match"):
        verify_upload(SECRET, other_key, query, now=999)


def test_another_secret_is_rejected() -> None:
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    with pytest.raises(SignatureError, match="does not match"):
        verify_upload("other", KEY, query, now=999)


def test_expired_url_is_its_own_error() -> None:
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    assert verify_upload(SECRET, KEY, query, now=1_000).expires == 1_000
    with pytest.raises(UploadExpired, match="expired 1 s ago"):
        verify_upload(SECRET, KEY, query, now=1_001)


@pytest.mark.parametrize("missing", ["size", "expires"])
def test_missing_parameter_is_a_signature_error(missing: str) -> None:
    _, query = _split(upload_url("http://b", SECRET, KEY, len(BODY), SHA1, 1_000))
    del query[missing]
    with pytest.raises(SignatureError, match=missing):
        verify_upload(SECRET, KEY, query, now=999)


@pytest.mark.parametrize(
    "key",
    [
        "../etc/passwd",
        f"runway/../{SHA1}.jpg",
        f"/runway/{SHA1}.jpg",
        f"runway/{SHA1}.png",
        f"RUNWAY/{SHA1}.jpg",
        "",
    ],
)
def test_non_media_keys_are_refused(key: str) -> None:
    with pytest.raises(InvalidKey, match="not a media key"):
        upload_url("http://b", SECRET, key, 10, SHA1, 1_000)
    with pytest.raises(InvalidKey):
        verify_upload(SECRET, key, {"size": "10", "sha1": SHA1, "expires": "1000"}, now=0)


def test_content_key_must_name_the_body_sha1() -> None:
    with pytest.raises(InvalidKey, match="does not match the content key"):
        check_upload_target(KEY, 10, sha1_hex(b"something else"))


def test_thumbnail_key_takes_the_thumbnail_sha1() -> None:
    thumb_body = b"small jpeg"
    check_upload_target(thumb_key(SHA1), len(thumb_body), sha1_hex(thumb_body))


def test_empty_secret_cannot_sign() -> None:
    with pytest.raises(ConfigError, match=r"server\.secret"):
        upload_url("http://b", "", KEY, len(BODY), SHA1, 1_000)


def test_media_url_is_under_the_backend() -> None:
    assert media_url("https://rk.example/api/", KEY) == f"https://rk.example/api/media/{KEY}"


def test_a_read_url_verifies_until_it_expires() -> None:
    url = read_url("http://backend:8092/", SECRET, KEY, 1_000)
    path, query = _split(url)
    assert path == f"/media/{KEY}"
    assert verify_read(SECRET, KEY, query, now=1_000) == 1_000
    with pytest.raises(ReadExpired, match="expired 1 s ago"):
        verify_read(SECRET, KEY, query, now=1_001)
    with pytest.raises(SignatureError, match="does not match"):
        verify_read(SECRET, thumb_key(SHA1), query, now=999)
    with pytest.raises(SignatureError, match="does not match"):
        verify_read("another secret", KEY, query, now=999)


def test_a_read_signature_never_passes_as_an_upload_signature() -> None:
    assert read_signature(SECRET, KEY, 1_000) != upload_signature(SECRET, KEY, 0, "", 1_000)
    with pytest.raises(ConfigError, match="secret"):
        read_url("http://b", "", KEY, 1_000)
