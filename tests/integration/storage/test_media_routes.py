"""The backend's /media routes over a real socket, writing to a file:// store."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from msgspec import Struct
from PIL import Image

from rk.core.api.errors import ConfigError
from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.api.lookups import open_storage
from rk.core.api.storage import StorageContext
from rk.core.media_urls import read_signature, read_url, upload_url
from rk.plugins.s4_storage.store import ObjectStoreStorage
from tests.integration.storage.helpers import SECRET, new_bucket, run_moto, s3_url, serve_media
from tests.support.net import free_port

BODY = b"\xff\xd8\xff the bytes of one runway look"
SHA1 = sha1_hex(BODY)
KEY = content_key("runway", SHA1)


class Backend(Struct, kw_only=True):
    """A served file:// store: its root, its storage, its base URL."""

    root: Path
    storage: ObjectStoreStorage
    url: str


@pytest.fixture
async def backend(tmp_path: Path, plugin_manager: object) -> AsyncIterator[Backend]:
    port = free_port()
    root = tmp_path / "media"
    storage = ObjectStoreStorage(
        f"file://{root}", StorageContext(backend_url=f"http://127.0.0.1:{port}", secret=SECRET)
    )
    async with serve_media(storage, SECRET, port) as url:
        yield Backend(root=root, storage=storage, url=url)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


async def test_good_upload_is_written_once(backend: Backend) -> None:
    upload = await backend.storage.presign_put(KEY, len(BODY), SHA1, 900)
    async with httpx.AsyncClient() as client:
        first = await client.put(upload.url, content=BODY, headers=upload.headers)
        again = await client.put(upload.url, content=BODY, headers=upload.headers)
    assert first.status_code == 201
    assert first.json() == {"key": KEY, "size": len(BODY), "created": True}
    assert again.status_code == 200
    assert again.json()["created"] is False
    assert (backend.root / KEY).read_bytes() == BODY
    assert _files(backend.root) == [KEY]


async def test_thumbnail_upload(backend: Backend) -> None:
    thumb = b"tiny jpeg"
    upload = await backend.storage.presign_put(thumb_key(SHA1), len(thumb), sha1_hex(thumb), 60)
    async with httpx.AsyncClient() as client:
        response = await client.put(upload.url, content=thumb)
    assert response.status_code == 201
    assert (backend.root / thumb_key(SHA1)).read_bytes() == thumb


async def _put(url: str, body: bytes) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.put(url, content=body)


async def test_other_bytes_of_the_same_size_are_refused(backend: Backend) -> None:
    upload = await backend.storage.presign_put(KEY, len(BODY), SHA1, 900)
    forged = BODY[:-1] + b"!"
    response = await _put(upload.url, forged)
    assert response.status_code == 422
    assert "sha1" in response.json()["error"]
    assert _files(backend.root) == []


@pytest.mark.parametrize("body", [BODY[:-1], BODY + b"extra"])
async def test_a_body_of_another_size_is_refused(backend: Backend, body: bytes) -> None:
    upload = await backend.storage.presign_put(KEY, len(BODY), SHA1, 900)
    response = await _put(upload.url, body)
    assert response.status_code == 422
    assert "bytes" in response.json()["error"]
    assert _files(backend.root) == []


async def test_expired_url_is_gone(backend: Backend) -> None:
    url = upload_url(backend.url, SECRET, KEY, len(BODY), SHA1, int(time.time()) - 5)
    response = await _put(url, BODY)
    assert response.status_code == 410
    assert "expired" in response.json()["error"]
    assert _files(backend.root) == []


@pytest.mark.parametrize(
    ("old", "new"), [("sig=", "sig=0"), ("size=", "size=1"), ("expires=", "expires=9")]
)
async def test_tampered_url_is_forbidden(backend: Backend, old: str, new: str) -> None:
    upload = await backend.storage.presign_put(KEY, len(BODY), SHA1, 900)
    response = await _put(upload.url.replace(old, new), BODY)
    assert response.status_code == 403
    assert "signature does not match" in response.json()["error"]
    assert _files(backend.root) == []


async def test_url_signed_with_another_secret_is_forbidden(backend: Backend) -> None:
    url = upload_url(backend.url, "not-the-secret", KEY, len(BODY), SHA1, int(time.time()) + 60)
    response = await _put(url, BODY)
    assert response.status_code == 403
    assert "signature" in response.json()["error"]


@pytest.mark.parametrize(
    "path",
    [
        "/media/upload/runway/..%2F..%2F..%2Fescape.jpg",
        "/media/upload/%2E%2E/%2E%2E/escape.jpg",
        f"/media/upload/runway/{SHA1}.jpg%00.txt",
        "/media/upload/thumb/x.jpg",
    ],
)
async def test_bad_keys_are_refused(backend: Backend, path: str, tmp_path: Path) -> None:
    query = f"?size={len(BODY)}&sha1={SHA1}&expires={int(time.time()) + 60}&sig=00"
    response = await _put(backend.url + path + query, BODY)
    assert response.status_code == 422
    assert "media key" in response.json()["error"]
    assert _files(tmp_path) == []


async def test_a_signed_read_serves_bytes_privately(backend: Backend) -> None:
    await backend.storage.put(KEY, BODY)
    url = await backend.storage.url_for(KEY, 60)
    assert url.startswith(f"{backend.url}/media/{KEY}?expires=")
    async with httpx.AsyncClient() as client:
        response = await client.get(url)
        cached = await client.get(url, headers={"If-None-Match": response.headers["etag"]})
    assert response.status_code == 200
    assert response.content == BODY
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "private, no-store"
    assert response.headers["etag"] == f'"{SHA1}"'
    assert cached.status_code == 304
    assert cached.content == b""


@pytest.mark.parametrize(
    ("query", "status", "error"),
    [
        (lambda q: {**q, "sig": "0" * 64}, 403, "does not match"),
        (lambda q: {**q, "expires": str(int(q["expires"]) + 1)}, 403, "does not match"),
        (lambda q: {"sig": q["sig"]}, 403, "no valid 'expires'"),
        (lambda q: {"expires": "1", "sig": read_signature(SECRET, KEY, 1)}, 410, "expired"),
    ],
)
async def test_a_bad_signed_read_is_refused(
    backend: Backend, query: Any, status: int, error: str
) -> None:
    await backend.storage.put(KEY, BODY)
    good = dict(parse_qsl(urlsplit(await backend.storage.url_for(KEY, 60)).query))
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{backend.url}/media/{KEY}", params=query(good))
    assert response.status_code == status
    assert error in response.json()["error"]
    assert response.headers["cache-control"] == "no-store"


async def test_a_signed_read_is_bound_to_its_key(backend: Backend) -> None:
    other = content_key("runway", sha1_hex(b"other"))
    await backend.storage.put(KEY, BODY)
    await backend.storage.put(other, b"other")
    query = urlsplit(await backend.storage.url_for(other, 60)).query
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{backend.url}/media/{KEY}?{query}")
    assert response.status_code == 403


def _image(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 6), (200, 10, 10)).save(out, fmt)
    return out.getvalue()


@pytest.mark.parametrize(
    ("body", "served_as"),
    [
        (_image("JPEG"), "image/jpeg"),
        (_image("PNG"), "image/png"),
        (b"<html><script>alert(1)</script></html>", "application/octet-stream"),
    ],
)
async def test_get_serves_the_type_the_bytes_are(
    backend: Backend, body: bytes, served_as: str
) -> None:
    key = thumb_key(SHA1)
    await backend.storage.put(key, body)
    async with httpx.AsyncClient() as client:
        response = await client.get(await backend.storage.url_for(key, 60))
    assert response.status_code == 200
    assert response.headers["content-type"] == served_as
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_an_upload_url_for_an_existing_thumbnail_replaces_nothing(
    backend: Backend,
) -> None:
    thumb = _image("JPEG")
    await backend.storage.put(thumb_key(SHA1), thumb)
    html = b"<html><script>alert(1)</script></html>"
    upload = await backend.storage.presign_put(thumb_key(SHA1), len(html), sha1_hex(html), 60)
    response = await _put(upload.url, html)
    assert response.status_code == 200
    assert response.json()["created"] is False
    assert (backend.root / thumb_key(SHA1)).read_bytes() == thumb


@pytest.mark.parametrize("key", ["..%2F..%2Fetc%2Fpasswd", "thumb/x.jpg"])
async def test_get_bad_key_is_404(backend: Backend, key: str) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{backend.url}/media/{key}")
    assert response.status_code == 404
    assert response.json()["error"].startswith("no media")
    assert response.headers["cache-control"] == "no-store"


async def test_signed_read_of_a_missing_key_is_404(backend: Backend) -> None:
    async with httpx.AsyncClient() as client:
        url = await backend.storage.url_for(content_key("street", "0" * 40), 60)
        response = await client.get(url)
    assert response.status_code == 404
    assert response.json()["error"].startswith("no media")


async def test_presign_without_a_secret_is_a_config_error(tmp_path: Path) -> None:
    storage = open_storage(f"file://{tmp_path}", StorageContext(secret=""))
    with pytest.raises(ConfigError, match="secret"):
        await storage.presign_put(KEY, len(BODY), SHA1, 60)


async def test_storage_down_is_503_so_the_client_retries(tmp_path: Path) -> None:
    port = free_port()
    with run_moto() as endpoint:
        url = s3_url(endpoint, new_bucket(endpoint), "max_retries=0")
    storage = open_storage(url, StorageContext(backend_url=f"http://127.0.0.1:{port}"))
    upload = upload_url(f"http://127.0.0.1:{port}", SECRET, KEY, len(BODY), SHA1, 2**40)
    read = read_url(f"http://127.0.0.1:{port}", SECRET, KEY, 2**40)
    async with serve_media(storage, SECRET, port), httpx.AsyncClient() as client:
        put = await client.put(upload, content=BODY)
        got = await client.get(read)
    assert (put.status_code, got.status_code) == (503, 503)
    assert "storage unavailable" in put.json()["error"]
    assert "storage unavailable" in got.json()["error"]
