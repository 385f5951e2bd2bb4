"""Media cleanup jobs: a deleted article's objects go, objects shared with live articles stay."""

from __future__ import annotations

import hashlib
import time

from rk.server.media.cleanup import enqueue_media_cleanup
from rk.server.platform.db.tables import Article, Image
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, show
from tests.integration.server.images import ImageServer, jpeg


def keys_of(data: bytes) -> set[str]:
    digest = hashlib.sha1(data).hexdigest()
    return {f"runway/{digest}.jpg", f"thumb/{digest}.jpg"}


async def test_cleanup_deletes_only_unshared_objects(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    own, shared, other = jpeg(1), jpeg(2), jpeg(3)
    own_url, shared_url = images.add("/own.jpg", own), images.add("/shared.jpg", shared)
    doomed = show("ss25/doomed", [own_url, shared_url])
    kept = show("ss25/kept", [shared_url, images.add("/other.jpg", other)])
    assert (await backend.ingest_and_wait(doomed))["outcome"] == "created"
    assert (await backend.ingest_and_wait(kept))["outcome"] == "created"
    doomed_id = (await article_of(doomed))["id"]
    queue = backend.app.state.queue

    live = await backend.wait_job(await enqueue_media_cleanup(queue, doomed_id))
    assert live["outcome"] == "noop"
    assert live["note"] == f"article {doomed_id} is not deleted; its media stay"

    await Article.update({Article.deleted_at: int(time.time())}).where(Article.id == doomed_id)
    job = await backend.wait_job(await enqueue_media_cleanup(queue, doomed_id))
    assert job["outcome"] == "cleaned"
    assert job["note"] == f"article {doomed_id}: deleted 2 objects, kept 2 shared"
    for key in keys_of(own):
        assert await backend.storage.head(key) is None
    for key in keys_of(shared) | keys_of(other):
        assert await backend.storage.head(key) is not None
    assert await Image.count().where(Image.article_id == doomed_id) == 2

    again = await backend.wait_job(await enqueue_media_cleanup(queue, doomed_id))
    assert again["outcome"] == "noop"
    assert again["note"] == f"article {doomed_id}: nothing left to delete (2 objects shared)"
    missing = await backend.wait_job(await enqueue_media_cleanup(queue, 999))
    assert missing["outcome"] == "noop"
    assert missing["note"] == "article 999 does not exist"
