"""``POST upload-urls``: a show's upload URLs in one signed request, ``exists`` from the
archive in one query, and the spider's per-image fallback when the batch is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec

from rk.core.api.wire import MAX_UPLOADS_PER_REQUEST, ImageRef, Look, ShowIngest
from rk.core.config import MediaSettings, Settings, SpiderSettings
from rk.core.runtime.client import BackendClient
from rk.core.runtime.http import polite_client
from rk.core.runtime.media_upload import MediaUploader
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import (
    INGEST,
    SECRET,
    Backend,
    article_of,
    backend_settings,
    images_of,
    show,
)
from tests.integration.server.images import ImageServer, jpeg
from tests.integration.server.test_internal_api import assert_error

UPLOAD_URLS = "/admin/internal/upload-urls"


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def original(data: bytes) -> dict[str, object]:
    return {"key": f"runway/{sha1(data)}.jpg", "size": len(data), "sha1": sha1(data)}


def thumb_of(data: bytes, thumb: bytes) -> dict[str, object]:
    key = f"thumb/{sha1(data)}.jpg"
    return {"key": key, "size": len(thumb), "sha1": sha1(thumb), "thumb_of": sha1(data)}


async def ask(backend: Backend, uploads: list[dict[str, object]]) -> list[dict[str, object]]:
    body = json.dumps({"uploads": uploads}).encode()
    response = await backend.signed("POST", UPLOAD_URLS, body)
    assert response.status_code == 200, response.text
    answer = response.json()["uploads"]
    assert len(answer) == len(uploads)
    return answer


async def test_archived_keys_exist_from_the_archive_others_are_asked_of_storage(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(workers=1, database=any_dsn)
    archived, new, stored = jpeg(11), jpeg(12), jpeg(13)
    payload = show("ss25/batch", [images.add("/a.jpg", archived)])
    assert (await backend.ingest_and_wait(payload))["status"] == "done"
    article = await article_of(payload)
    assert article is not None
    [row] = await images_of(article["id"])
    # Gone from storage, still in the archive: the one query answers, storage is not asked.
    await backend.storage.delete(row["key"])
    await backend.storage.put(f"runway/{sha1(stored)}.jpg", stored, "image/jpeg")
    small = jpeg(14, (64, 96))
    answer = await ask(
        backend,
        [
            original(archived),
            thumb_of(archived, small),
            original(new),
            thumb_of(new, small),
            original(stored),
            dict(original(stored), size=len(stored) + 1, sha1=sha1(stored)),
        ],
    )
    # A stored key is never replaced, whatever size is asked for.
    assert [a["exists"] for a in answer] == [True, True, False, False, True, True]
    for grant, data in ((answer[2], new), (answer[3], small)):
        put = await backend.client.put(str(grant["url"]), content=data, headers=grant["headers"])
        assert put.status_code == 201, put.text
    assert await backend.storage.get(f"runway/{sha1(new)}.jpg") == new
    assert await backend.storage.get(f"thumb/{sha1(new)}.jpg") == small


async def test_one_bad_upload_refuses_the_batch(start_backend: StartBackend) -> None:
    backend = await start_backend(workers=0)
    good, bad = jpeg(21), jpeg(22)
    mismatch = dict(original(bad), sha1=sha1(good))
    body = json.dumps({"uploads": [original(good), mismatch]}).encode()
    message = assert_error(await backend.signed("POST", UPLOAD_URLS, body), 422, "uploads[1]")
    assert "does not match" in message
    empty = json.dumps({"uploads": []}).encode()
    assert_error(await backend.signed("POST", UPLOAD_URLS, empty), 422)
    many = json.dumps({"uploads": [original(good)] * (MAX_UPLOADS_PER_REQUEST + 1)}).encode()
    assert_error(await backend.signed("POST", UPLOAD_URLS, many), 422)
    assert_error(await backend.client.post(UPLOAD_URLS, content=body), 401)
    good_body = json.dumps({"uploads": [original(good)]}).encode()
    assert_error(await backend.signed("POST", UPLOAD_URLS, good_body, secret="other"), 401)
    assert await backend.storage.head(f"runway/{sha1(good)}.jpg") is None


async def test_a_refused_batch_falls_back_to_one_request_per_image(
    start_backend: StartBackend, images: ImageServer, tmp_path: Path
) -> None:
    """The backend's image limit is below one image: the batch is 422, each image asks alone,
    the big one is reported by URL and the others are uploaded with their thumbnails."""
    small, big = jpeg(31), jpeg(32, (1280, 1920))
    settings = msgspec.structs.replace(
        backend_settings(tmp_path, workers=0), media=MediaSettings(max_image_bytes=len(big) - 1)
    )
    backend = await start_backend(settings)
    urls = [images.add("/s.jpg", small), images.add("/b.jpg", big), images.add("/t.jpg", jpeg(33))]
    looks = [Look(number=n, image=ImageRef(url=url)) for n, url in enumerate(urls, start=1)]
    payload = ShowIngest(source="vogue", show_key="ss25/fallback", title="x", looks=looks)
    spider = Settings(
        media=MediaSettings(upload=True),
        spider=SpiderSettings(min_interval_s=0, retries=0),
    )
    async with (
        BackendClient(backend.url + INGEST, SECRET) as client,
        polite_client(spider.spider) as http,
    ):
        uploaded, stats = await MediaUploader(client, http, spider).upload_show(payload, "runway")
    assert (stats.uploaded, stats.fell_back, stats.failed, stats.thumbs) == (2, 1, 0, 2)
    assert [look.image.key is not None for look in uploaded.looks] == [True, False, True]
    for data in (small, jpeg(33)):
        assert await backend.storage.get(f"runway/{sha1(data)}.jpg") == data
        assert await backend.storage.head(f"thumb/{sha1(data)}.jpg") is not None
    assert await backend.storage.head(f"runway/{sha1(big)}.jpg") is None


async def test_a_show_bigger_than_the_byte_budget_goes_in_several_batches(
    start_backend: StartBackend, images: ImageServer
) -> None:
    """One download at a time and a 1-byte budget: every image is a batch of its own, with
    its two requests (original, thumbnail), and every image is stored."""
    backend = await start_backend(workers=0)
    photos = [jpeg(40 + n) for n in range(3)]
    urls = [images.add(f"/{n}.jpg", data) for n, data in enumerate(photos)]
    looks = [Look(number=n, image=ImageRef(url=url)) for n, url in enumerate(urls, start=1)]
    payload = ShowIngest(source="vogue", show_key="ss25/budget", title="x", looks=looks)
    spider = Settings(
        media=MediaSettings(upload=True, concurrency=1),
        spider=SpiderSettings(min_interval_s=0, retries=0),
    )
    async with (
        BackendClient(backend.url + INGEST, SECRET) as client,
        polite_client(spider.spider) as http,
    ):
        uploader = MediaUploader(client, http, spider, batch_bytes=1)
        _, stats = await uploader.upload_show(payload, "runway")
    assert (stats.uploaded, stats.thumbs) == (3, 3)
    for data in photos:
        assert await backend.storage.get(f"runway/{sha1(data)}.jpg") == data
    metrics = (await backend.client.get("/metrics")).text
    labels = 'method="POST",route="/admin/internal/upload-urls",status="200"'
    line = f"rk_http_request_duration_seconds_count{{{labels}}}"
    assert f"{line} 6.0" in metrics
