"""The thumbnail contract of ``UploadUrlRequest.thumb_of`` and ``UploadUrl.exists``."""

from __future__ import annotations

import msgspec
import pytest

from rk.core.api.wire import UploadUrl, UploadUrlRequest

ORIGINAL = "a" * 40
THUMB = "b" * 40


def decode(**fields: object) -> UploadUrlRequest:
    return msgspec.json.decode(msgspec.json.encode(fields), type=UploadUrlRequest)


def test_thumb_key_with_thumb_of() -> None:
    request = decode(key=f"thumb/{ORIGINAL}.jpg", size=10, sha1=THUMB, thumb_of=ORIGINAL)
    assert (request.sha1, request.thumb_of) == (THUMB, ORIGINAL)


def test_thumb_key_needs_thumb_of() -> None:
    with pytest.raises(msgspec.ValidationError, match="a thumb/ key needs thumb_of"):
        decode(key=f"thumb/{ORIGINAL}.jpg", size=10, sha1=THUMB)


@pytest.mark.parametrize("key", [f"thumb/{THUMB}.jpg", f"runway/{ORIGINAL}.jpg"])
def test_thumb_of_must_name_the_key(key: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=r"must be thumb/<thumb_of>\.jpg"):
        decode(key=key, size=10, sha1=THUMB, thumb_of=ORIGINAL)


def test_content_keys_are_unchanged() -> None:
    assert decode(key=f"runway/{ORIGINAL}.jpg", size=1, sha1=ORIGINAL).thumb_of is None


def test_exists_defaults_to_false_for_older_backends() -> None:
    answer = msgspec.json.decode(b'{"url": "http://s/k", "expires_at": 1}', type=UploadUrl)
    assert answer.exists is False
