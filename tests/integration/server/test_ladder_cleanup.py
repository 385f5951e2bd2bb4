"""Rendition ladders leave storage with their original, never before (issue 29), on SQLite
and PostgreSQL: media cleanup deletes the rungs of a deleted article's unshared originals
and keeps those of shared ones; the storage sweep keeps every rung of a live original,
deletes rungs whose original no live image uses, and counts a listed rung it lacks."""

from __future__ import annotations

import hashlib
import time

from rk.core.api.keys import rendition_key
from rk.server.media.cleanup import enqueue_media_cleanup
from rk.server.media.storage_gc import sweep
from rk.server.platform.db.tables import Article
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, show
from tests.integration.server.images import ImageServer, jpeg

RUNWAY = (1280, 1920)
WIDTHS = (360, 560, 640, 800, 1200)


def objects_of(data: bytes) -> set[str]:
    """The original, thumbnail and rungs of a 1280×1920 photo."""
    digest = hashlib.sha1(data).hexdigest()
    rungs = {rendition_key(width, digest) for width in WIDTHS}
    return {f"runway/{digest}.jpg", f"thumb/{digest}.jpg"} | rungs


async def test_cleanup_takes_the_rungs_of_unshared_originals_only(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    own, shared = jpeg(11, RUNWAY), jpeg(12, RUNWAY)
    own_url, shared_url = images.add("/own.jpg", own), images.add("/shared.jpg", shared)
    doomed, kept = show("ss25/doomed", [own_url, shared_url]), show("ss25/kept", [shared_url])
    assert (await backend.ingest_and_wait(doomed))["outcome"] == "created"
    assert (await backend.ingest_and_wait(kept))["outcome"] == "created"
    doomed_row = await article_of(doomed)
    assert doomed_row is not None
    doomed_id = int(doomed_row["id"])
    for key in objects_of(own) | objects_of(shared):
        assert await backend.storage.head(key) is not None, key

    await Article.update({Article.deleted_at: int(time.time())}).where(Article.id == doomed_id)
    job = await backend.wait_job(await enqueue_media_cleanup(backend.app.state.queue, doomed_id))
    assert job["outcome"] == "cleaned"
    assert job["note"] == f"article {doomed_id}: deleted 7 objects, kept 7 shared"
    for key in objects_of(own):
        assert await backend.storage.head(key) is None, key
    for key in objects_of(shared):
        assert await backend.storage.head(key) is not None, key


async def test_the_sweep_keeps_live_rungs_and_deletes_orphaned_ones(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    live = jpeg(13, RUNWAY)
    payload = show("ss25/live", [images.add("/live.jpg", live)])
    assert (await backend.ingest_and_wait(payload))["outcome"] == "created"
    live_sha1 = hashlib.sha1(live).hexdigest()
    orphan = rendition_key(560, "f" * 40)
    await backend.storage.put(orphan, await backend.storage.get(rendition_key(560, live_sha1)))
    lost = rendition_key(640, live_sha1)
    await backend.storage.delete(lost)

    report = await sweep(backend.storage, grace_s=0)
    assert (report.listed, report.referenced, report.orphans, report.deleted) == (7, 6, 1, 1)
    assert report.orphan_sample == [orphan]
    assert (report.missing, report.missing_sample) == (1, [lost])
    assert await backend.storage.head(orphan) is None
    for key in objects_of(live) - {lost}:
        assert await backend.storage.head(key) is not None, key
