"""The ingest worker end to end on the embedded default: outcomes, notes, keys, SSRF, retries."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import time
from pathlib import Path
from typing import Any

import msgspec
from PIL import Image as PILImage

from rk.core import hookimpl
from rk.core.api.wire import ImageRef
from rk.server.platform.db.tables import Article, Image
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import UPLOAD_URL, Backend, article_of, images_of, show
from tests.integration.server.images import Answer, ImageServer, jpeg


def media_files(backend: Backend) -> set[str]:
    """Every object key in the file:// store."""
    root = Path(backend.settings.storage_url.removeprefix("file://"))
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


async def test_created_with_images_thumbnails_and_a_note_of_what_is_missing(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    one, two, detail = jpeg(1), jpeg(2, (1000, 600)), jpeg(3)
    urls = [
        images.add("/1.jpg", one),
        images.url("/gone.jpg"),
        images.add("/page.jpg", Answer(body=b"<html>sold out</html>", content_type="text/html")),
        images.add("/empty.jpg", b""),
        images.add("/2.jpg", two),
    ]
    payload = show("ss25/created", urls, details=[images.add("/d.jpg", detail)])
    job = await backend.ingest_and_wait(payload)
    assert job["status"] == "done"
    assert job["outcome"] == "created"
    assert job["note"] == (
        "created, 3 images, 3 missing: look 2 (HTTP 404), look 3 (not an image (text/html)), "
        "look 4 (empty body (0 bytes))"
    )
    article = await article_of(payload)
    assert article is not None
    assert article["status"] == "pending"
    assert article["kind"] == "runway"
    rows = await images_of(article["id"])
    assert [(r["role"], r["position"]) for r in rows] == [("look", 1), ("look", 5), ("detail", 1)]
    for row, data in zip(rows, [one, two, detail], strict=True):
        assert row["key"] == f"runway/{sha1(data)}.jpg"
        assert row["thumb_key"] == f"thumb/{sha1(data)}.jpg"
        assert row["size"] == len(data)
        assert await backend.storage.get(row["key"]) == data
        thumb = PILImage.open(io.BytesIO(await backend.storage.get(row["thumb_key"])))
        assert thumb.format == "JPEG"
        assert min(thumb.size) == 256
    assert (rows[1]["width"], rows[1]["height"]) == (1000, 600)
    assert job["brand_id"] == 0


async def test_dedupe_outcomes(
    start_backend: StartBackend, images: ImageServer, register_plugin: Any
) -> None:
    seen: list[tuple[str, int, str]] = []
    changes: list[tuple[int, str, str]] = []

    class Recorder:
        __name__ = "recorder"

        @hookimpl
        def rk_show_ingested(self, show: Any, article_id: int, outcome: str) -> None:
            seen.append((show.show_key, article_id, outcome))

        @hookimpl
        def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
            changes.append((article_id, old, new))

    register_plugin(Recorder(), "recorder")
    backend = await start_backend()
    first, second = jpeg(10), jpeg(11)
    payload = show("ss25/dedupe", [images.add("/a.jpg", first)])
    created = await backend.ingest_and_wait(payload)
    assert created["outcome"] == "created"
    article_id = (await article_of(payload))["id"]

    again = await backend.ingest_and_wait(payload)
    assert again["outcome"] == "skipped_existing"
    assert again["note"] == f"article {article_id} already exists (pending)"
    assert images.hits["/a.jpg"] == 1

    await Article.update({Article.status: "rejected"}).where(Article.id == article_id)
    replaced = show("ss25/dedupe", [images.add("/b.jpg", second)])
    reused = await backend.ingest_and_wait(replaced)
    assert reused["outcome"] == "reused_rejected"
    assert reused["note"] == f"reused rejected article {article_id}, 1 image"
    article = await article_of(replaced)
    assert article["status"] == "pending"
    assert [r["key"] for r in await images_of(article_id)] == [f"runway/{sha1(second)}.jpg"]
    kept = {f"runway/{sha1(second)}.jpg", f"thumb/{sha1(second)}.jpg"}
    for _ in range(200):  # the old files go just after the job's commit: up to 10 s
        if media_files(backend) == kept:
            break
        await asyncio.sleep(0.05)
    assert media_files(backend) == kept

    await Article.update({Article.deleted_at: int(time.time())}).where(Article.id == article_id)
    deleted = await backend.ingest_and_wait(replaced)
    assert deleted["outcome"] == "skipped_deleted"
    assert "deletion is permanent" in deleted["note"]
    assert seen == [
        ("ss25/dedupe", article_id, "created"),
        ("ss25/dedupe", article_id, "skipped_existing"),
        ("ss25/dedupe", article_id, "reused_rejected"),
        ("ss25/dedupe", article_id, "skipped_deleted"),
    ]
    assert changes == [(article_id, "rejected", "pending")]


async def _upload(backend: Backend, data: bytes, kind: str = "runway") -> str:
    """Upload like a spider: upload-url, then PUT; the key."""
    key = f"{kind}/{sha1(data)}.jpg"
    body = json.dumps({"key": key, "size": len(data), "sha1": sha1(data)}).encode()
    grant = (await backend.signed("POST", UPLOAD_URL, body)).json()
    put = await backend.client.put(grant["url"], content=data, headers=grant["headers"])
    assert put.status_code == 201, put.text
    return key


async def test_uploaded_keys_are_used_when_they_exist_with_the_right_size(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    good, wrong, missing = jpeg(20), jpeg(21), jpeg(22)
    good_key = await _upload(backend, good)
    wrong_key = await _upload(backend, wrong)
    refs = [
        ImageRef(url=images.url("/never.jpg"), key=good_key, size=len(good), sha1=sha1(good)),
        ImageRef(url=images.add("/w.jpg", wrong), key=wrong_key, size=len(wrong) + 1),
        ImageRef(url=images.add("/m.jpg", missing), key=f"runway/{sha1(missing)}.jpg"),
    ]
    payload = show("ss25/keys", refs)
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created"
    assert job["note"] == (
        f"created, 3 images; 2 uploaded keys unusable, downloaded: look 2 (uploaded key has "
        f"{len(wrong)} bytes, not {len(wrong) + 1}), look 3 (uploaded key missing)"
    )
    assert "/never.jpg" not in images.hits
    rows = await images_of((await article_of(payload))["id"])
    assert [r["uploaded_by_spider"] for r in rows] == [1, 0, 0]
    assert rows[0]["key"] == good_key
    assert (rows[0]["width"], rows[0]["height"]) == (320, 480)
    assert await backend.storage.head(f"thumb/{sha1(good)}.jpg") is not None
    assert await backend.storage.head(f"runway/{sha1(missing)}.jpg") is not None


async def test_private_and_metadata_addresses_are_refused(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend(allow=[f"localhost:{images.port}"])
    images.add("/ok.jpg", jpeg(30))
    images.add("/secret.jpg", jpeg(31))
    images.add("/hop", Answer(status=302, headers={"Location": images.url("/secret.jpg")}))
    urls = [
        images.url("/ok.jpg", host="localhost"),
        images.url("/secret.jpg"),
        "http://169.254.169.254/latest/meta-data/iam",
        "http://10.20.30.40/a.jpg",
        images.url("/hop", host="localhost"),
    ]
    job = await backend.ingest_and_wait(show("ss25/ssrf", urls))
    assert job["outcome"] == "created"
    note = job["note"]
    assert note.startswith("created, 1 image, 4 missing: look 2 (refused: 127.0.0.1 resolves")
    assert "look 3 (refused: 169.254.169.254 resolves to 169.254.169.254, a cloud metadata" in note
    assert "look 4 (refused: 10.20.30.40 resolves to 10.20.30.40, a private address)" in note
    assert "look 5 (refused: 127.0.0.1 resolves to 127.0.0.1, a loopback address)" in note
    assert "/secret.jpg" not in images.hits


async def test_nothing_fetchable_fails_the_job_with_the_reasons(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend(allow=[])
    payload = show("ss25/none", [images.add("/x.jpg", jpeg(40))])
    job = await backend.ingest_and_wait(payload)
    assert job["status"] == "failed"
    assert job["attempts"] == 1
    assert job["last_error"].startswith("no image could be stored: look 1 (refused: 127.0.0.1")
    assert await article_of(payload) is None
    assert images.hits == {}
    assert media_files(backend) == set()


async def test_transient_failures_retry_then_record_what_is_still_missing(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    flaky = images.add("/flaky.jpg", Answer(body=jpeg(50), fail_first=1))
    down = images.add("/down.jpg", Answer(body=jpeg(51), fail_first=1000))
    ok = images.add("/ok.jpg", jpeg(52))
    job = await backend.ingest_and_wait(show("ss25/retry", [ok, flaky, down]))
    assert job["status"] == "done"
    assert job["attempts"] == 3
    assert job["note"] == "created, 2 images, 1 missing: look 3 (HTTP 503)"
    assert images.hits["/down.jpg"] == 3


async def test_storage_down_rolls_back_only_this_jobs_objects_then_succeeds(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend(max_attempts=50, backoff_s=1)
    shared, uploaded, fresh = jpeg(60), jpeg(61), jpeg(62)
    shared_url = images.add("/shared.jpg", shared)
    first = await backend.ingest_and_wait(show("ss25/first", [shared_url]))
    assert first["outcome"] == "created"
    uploaded_key = await _upload(backend, uploaded, "street")
    before = media_files(backend)
    assert before == {
        f"runway/{sha1(shared)}.jpg",
        f"thumb/{sha1(shared)}.jpg",
        uploaded_key,
    }

    root = Path(backend.settings.storage_url.removeprefix("file://"))
    (root / "runway").rename(root / "runway.away")
    (root / "runway").write_bytes(b"not a directory")
    refs = [
        ImageRef(url=shared_url),
        ImageRef(url=images.url("/u.jpg"), key=uploaded_key, size=len(uploaded)),
        ImageRef(url=images.add("/fresh.jpg", fresh)),
    ]
    payload = show("ss25/second", refs)
    job_id = await backend.submit(payload)
    failed = await backend.wait_attempt(job_id, 1)
    assert failed["last_error"]
    assert await article_of(payload) is None
    now = {k for k in media_files(backend) if k != "runway"}
    assert now == {k for k in before if not k.startswith("runway/")} | {
        f"runway.away/{sha1(shared)}.jpg"
    }
    assert await Image.count() == 1

    (root / "runway").unlink()
    (root / "runway.away").rename(root / "runway")
    job = await backend.wait_job(job_id)
    assert job["outcome"] == "created"
    assert job["note"] == "created, 3 images"
    assert media_files(backend) == before | {
        f"runway/{sha1(fresh)}.jpg",
        f"thumb/{sha1(fresh)}.jpg",
        f"thumb/{sha1(uploaded)}.jpg",
    }


async def test_street_sources_store_under_street(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    data = jpeg(70)
    payload = show(
        "post/2025/10/look", [images.add("/s.jpg", data)], source="theimpression", kind="street"
    )
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created"
    article = await article_of(payload)
    assert article["kind"] == "street"
    assert [r["key"] for r in await images_of(article["id"])] == [f"street/{sha1(data)}.jpg"]


async def test_a_retried_post_never_duplicates_the_article(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(workers=3, database=any_dsn)
    payload = show("ss25/twice", [images.add(f"/t{n}.jpg", jpeg(80 + n)) for n in range(4)])
    body = msgspec.json.encode(payload)
    job_ids = [int((await backend.ingest(body)).json()["job_id"]) for _ in range(3)]
    outcomes = sorted([(await backend.wait_job(j))["outcome"] for j in job_ids])
    assert outcomes == ["created", "skipped_existing", "skipped_existing"]
    assert await Article.count() == 1
    assert await Image.count() == 4
