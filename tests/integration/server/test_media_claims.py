"""A job's claims on media keys: asked for image by image, written together, each key once.

Both engines. The images of a show ask for their claims concurrently; those asked while
one claim statement runs share the next, and every key ends up claimed exactly once, so
another job's rollback leaves it alone until the claiming job finishes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.keys import content_key, sha1_hex, thumb_key
from rk.core.api.queues import Job
from rk.core.api.storage import StorageContext
from rk.core.config import QueueSettings
from rk.plugins.s4_storage.store import ObjectStoreStorage
from rk.server.ingest.store_image import Written
from rk.server.media.refs import delete_if_unreferenced
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.engine import JobQueue
from tests.integration.queues.helpers import Clock, fetch_rows


@pytest.fixture
async def dsn(any_dsn: str) -> str:
    """A fresh database of each engine with rk's migrations applied."""
    await migrate(any_dsn)
    return any_dsn


@pytest.fixture
async def queue(dsn: str) -> AsyncIterator[JobQueue]:
    """A queue over the process's database, the tables bound to the same one."""
    db = await connect(dsn)
    try:
        yield JobQueue.on(db, QueueSettings(ingest_stuck_s=10), clock=Clock())
    finally:
        await close(db)


async def running_job(queue: JobQueue) -> Job:
    await queue.enqueue("crawl", "{}", 0)
    job = await queue.claim()
    assert job is not None
    return job


def image_keys(n: int) -> tuple[str, str]:
    sha1 = sha1_hex(f"image {n}".encode())
    return content_key("runway", sha1), thumb_key(sha1)


async def test_concurrent_claims_of_a_job_record_every_key_once(queue: JobQueue, dsn: str) -> None:
    job = await running_job(queue)
    written = Written(job.id)
    asked = [image_keys(n % 30) for n in range(40)]  # ten images repeat another's bytes
    await asyncio.gather(*(written.claim(*keys) for keys in asked))
    await written.claim(*asked[0])  # claimed already: nothing more
    found = await fetch_rows(dsn, f"SELECT key FROM media_claims WHERE job_id = {job.id}")
    keys = [row["key"] for row in found]
    assert sorted(keys) == sorted({k for pair in asked for k in pair})


async def test_a_batch_claim_keeps_each_key_from_another_jobs_rollback(
    queue: JobQueue, tmp_path: Path
) -> None:
    storage = ObjectStoreStorage(f"file://{tmp_path / 'media'}", StorageContext())
    holder, other = await running_job(queue), await running_job(queue)
    data = [f"shared {n}".encode() for n in range(3)]
    keys = [content_key("runway", sha1_hex(d)) for d in data]
    for key, body in zip(keys, data, strict=True):
        await storage.create(key, body)
    written = Written(holder.id)
    await asyncio.gather(*(written.claim(key) for key in keys))
    for key in keys:
        assert not await delete_if_unreferenced(storage, key, job_id=other.id)
        assert await storage.head(key) is not None
    assert await queue.complete(holder, "created", "created, 3 images")
    for key in keys:  # the holder finished: its claims are dead
        assert await delete_if_unreferenced(storage, key, job_id=other.id)
        assert await storage.head(key) is None
