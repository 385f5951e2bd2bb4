"""The Storage contract, run against file://, memory:// and s3:// (moto over a real socket)."""

from __future__ import annotations

import time

import httpx
import pytest

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.api.storage import Storage
from rk.plugins.s4_storage.store import ObjectStoreStorage

BODY = b"\xff\xd8\xff\xe0 not really a jpeg, but bytes are bytes \x00\x01"
KEY = content_key("runway", sha1_hex(BODY))


def test_every_scheme_is_the_obstore_storage(storage: Storage) -> None:
    assert isinstance(storage, ObjectStoreStorage)
    assert isinstance(storage, Storage)


async def test_put_get_head_delete(storage: Storage) -> None:
    assert await storage.head(KEY) is None
    await storage.put(KEY, BODY)
    assert await storage.get(KEY) == BODY
    info = await storage.head(KEY)
    assert info is not None
    assert (info.key, info.size) == (KEY, len(BODY))
    assert abs(info.modified - time.time()) < 3600
    await storage.put(KEY, BODY)
    assert await storage.get(KEY) == BODY
    await storage.delete(KEY)
    assert await storage.head(KEY) is None
    with pytest.raises(FileNotFoundError, match=KEY):
        await storage.get(KEY)


async def test_missing_key(storage: Storage) -> None:
    missing = content_key("street", sha1_hex(b"never stored"))
    assert await storage.head(missing) is None
    with pytest.raises(FileNotFoundError):
        await storage.get(missing)
    await storage.delete(missing)


async def test_thumbnail_key_holds_other_bytes(storage: Storage) -> None:
    thumb = b"a smaller jpeg"
    await storage.put(thumb_key(sha1_hex(BODY)), thumb)
    assert await storage.get(thumb_key(sha1_hex(BODY))) == thumb


async def test_content_key_refuses_bytes_of_another_sha1(storage: Storage) -> None:
    with pytest.raises(InvalidKey, match="cannot be stored under"):
        await storage.put(KEY, BODY + b"!")
    assert await storage.head(KEY) is None


@pytest.mark.parametrize(
    "key", ["../escape.jpg", f"runway/../../{sha1_hex(BODY)}.jpg", "runway/x.jpg", "notes.txt"]
)
async def test_non_media_keys_are_refused_everywhere(storage: Storage, key: str) -> None:
    with pytest.raises(InvalidKey):
        await storage.put(key, BODY)
    with pytest.raises(InvalidKey):
        await storage.get(key)
    with pytest.raises(InvalidKey):
        await storage.head(key)
    with pytest.raises(InvalidKey):
        await storage.delete(key)
    with pytest.raises(InvalidKey):
        await storage.presign_put(key, len(BODY), sha1_hex(BODY), 60)


async def test_presigned_put_then_read_back(storage: Storage) -> None:
    before = int(time.time())
    upload = await storage.presign_put(KEY, len(BODY), sha1_hex(BODY), 900)
    assert before + 900 <= upload.expires_at <= int(time.time()) + 900
    async with httpx.AsyncClient() as client:
        response = await client.put(upload.url, content=BODY, headers=upload.headers)
    assert response.status_code in {200, 201}, response.text
    assert await storage.get(KEY) == BODY


async def test_presign_refuses_a_sha1_that_is_not_the_keys(storage: Storage) -> None:
    with pytest.raises(InvalidKey, match="does not match the content key"):
        await storage.presign_put(KEY, len(BODY), sha1_hex(b"other"), 60)


async def test_url_for_serves_the_bytes(storage: Storage) -> None:
    await storage.put(KEY, BODY)
    url = await storage.url_for(KEY, 300)
    async with httpx.AsyncClient() as client:
        response = await client.get(url)
    assert response.status_code == 200
    assert response.content == BODY


async def test_create_never_replaces_an_object(storage: Storage) -> None:
    thumb = thumb_key(sha1_hex(BODY))
    assert await storage.create(thumb, b"first thumbnail") is True
    assert await storage.create(thumb, b"<html>other bytes</html>") is False
    assert await storage.get(thumb) == b"first thumbnail"
    with pytest.raises(InvalidKey, match="cannot be stored under"):
        await storage.create(KEY, BODY + b"!")


async def test_list_objects_names_every_key_with_size_and_time(storage: Storage) -> None:
    other = b"another body"
    keys = {KEY: len(BODY), content_key("street", sha1_hex(other)): len(other)}
    await storage.put(KEY, BODY)
    await storage.put(content_key("street", sha1_hex(other)), other)
    await storage.put(thumb_key(sha1_hex(BODY)), b"thumb")
    listed = [info async for info in storage.list_objects()]
    assert {i.key: i.size for i in listed} == keys | {thumb_key(sha1_hex(BODY)): 5}
    assert all(abs(i.modified - time.time()) < 3600 for i in listed)
    runway = [info.key async for info in storage.list_objects("runway/")]
    assert runway == [KEY]


async def test_an_upload_url_never_overwrites_an_existing_key(storage: Storage) -> None:
    thumb = thumb_key(sha1_hex(BODY))
    await storage.put(thumb, b"the real thumbnail")
    html = b"<html><script>alert(1)</script></html>"
    upload = await storage.presign_put(thumb, len(html), sha1_hex(html), 900)
    async with httpx.AsyncClient() as client:
        response = await client.put(upload.url, content=html, headers=upload.headers)
    assert response.status_code in {200, 412}, response.text
    assert await storage.get(thumb) == b"the real thumbnail"
