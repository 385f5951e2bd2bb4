"""The file store keeps every key under its root (resolved once), and checks a given sha1."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.api.storage import StorageContext
from rk.plugins.s4_storage.store import ObjectStoreStorage

BODY = b"\xff\xd8\xff\xe0 bytes of a photo"
KEY = content_key("runway", sha1_hex(BODY))


def file_store(root: Path) -> ObjectStoreStorage:
    """A file store at ``root``."""
    return ObjectStoreStorage(f"file://{root}", StorageContext())


async def test_a_linked_directory_is_refused_for_every_operation(tmp_path: Path) -> None:
    root, outside = tmp_path / "media", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "runway").symlink_to(outside)
    store = file_store(root)
    for attempt in (
        store.put(KEY, BODY),
        store.create(KEY, BODY),
        store.get(KEY),
        store.head(KEY),
        store.delete(KEY),
        store.presign_put(KEY, len(BODY), sha1_hex(BODY), 60),
    ):
        with pytest.raises(InvalidKey, match="outside the storage root"):
            await attempt
    assert list(outside.iterdir()) == []


async def test_a_linked_object_is_never_read(tmp_path: Path) -> None:
    root = tmp_path / "media"
    (root / "thumb").mkdir(parents=True)
    (tmp_path / "secret").write_bytes(b"not media")
    key = thumb_key(sha1_hex(BODY))
    (root / key).symlink_to(tmp_path / "secret")
    store = file_store(root)
    with pytest.raises(InvalidKey, match="outside the storage root"):
        await store.get(key)
    with pytest.raises(InvalidKey, match="outside the storage root"):
        await store.put(key, b"thumb")
    assert (tmp_path / "secret").read_bytes() == b"not media"


async def test_a_root_given_through_a_link_is_resolved_once_and_used(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    store = file_store(tmp_path / "alias")
    assert await store.create(KEY, BODY) is True
    assert (tmp_path / "real" / KEY).read_bytes() == BODY
    assert await store.get(KEY) == BODY


async def test_a_given_sha1_is_checked_against_the_content_key(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    with pytest.raises(InvalidKey, match=f"bytes with sha1 {'0' * 40} cannot be stored"):
        await store.create(KEY, BODY, sha1="0" * 40)
    with pytest.raises(InvalidKey, match="cannot be stored"):
        await store.put(KEY, BODY, sha1="0" * 40)
    assert await store.head(KEY) is None
    assert await store.create(KEY, BODY, sha1=sha1_hex(BODY)) is True
    assert await store.get(KEY) == BODY
