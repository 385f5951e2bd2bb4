"""Content-addressed keys and brand uids."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import (
    Hashed,
    content_key,
    is_media_key,
    parse_content_key,
    sha1_hex,
    thumb_key,
)
from rk.core.uids import brand_uid


@given(st.binary(max_size=64), st.sampled_from(["runway", "street"]))
def test_same_bytes_same_key(data: bytes, kind: str) -> None:
    key = content_key(kind, sha1_hex(data))
    assert key == f"{kind}/{sha1_hex(data)}.jpg"
    assert parse_content_key(key) == (kind, sha1_hex(data))
    assert is_media_key(key)
    assert is_media_key(thumb_key(sha1_hex(data)))


@pytest.mark.parametrize(
    "key",
    [
        "runway/../../etc/passwd",
        "runway/" + "A" * 40 + ".jpg",
        "runway/" + "a" * 39 + ".jpg",
        "other/" + "a" * 40 + ".jpg",
        "runway/" + "a" * 40 + ".png",
        "/runway/" + "a" * 40 + ".jpg",
        "",
    ],
)
def test_bad_keys(key: str) -> None:
    with pytest.raises(InvalidKey, match="not content-addressed"):
        parse_content_key(key)
    assert not is_media_key(key)


def test_brand_uids_are_distinct_and_stable() -> None:
    uids = {brand_uid(i) for i in range(1, 2001)}
    assert len(uids) == 2000
    assert brand_uid(7) == brand_uid(7)
    assert all(len(uid) >= 8 for uid in uids)


@given(st.binary(max_size=4096))
def test_hashed_bytes_carry_their_sha1(data: bytes) -> None:
    hashed = Hashed(data)
    assert hashed == data
    assert hashed.sha1 == hashlib.sha1(data).hexdigest()
    assert sha1_hex(hashed) == sha1_hex(data)
