"""A job's effects commit with its completion, and only while its claim holds (both engines)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rk.core.config import QueueSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Article
from rk.server.platform.jobs.claim import Claim, ClaimLost
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone
from tests.integration.queues.helpers import Clock, Rows


@pytest.fixture
async def queue(queue_dsn: str, clock: Clock) -> AsyncIterator[JobQueue]:
    """A queue over the process's database, the tables bound to the same one."""
    db = await connect(queue_dsn)
    try:
        yield JobQueue.on(db, QueueSettings(ingest_stuck_s=10), clock=clock)
    finally:
        await close(db)


async def write_article() -> JobDone:
    await Article.insert(Article(source="vogue", show_key="fenced", kind="runway"))
    return JobDone(outcome="created", note="created, 0 images")


async def test_a_lost_claim_commits_nothing_and_the_holder_commits_all(
    queue: JobQueue, clock: Clock, rows: Rows
) -> None:
    job_id = await queue.enqueue("crawl", "{}", 0)
    stale = await queue.claim()
    assert stale is not None
    clock.advance(11)  # its worker stopped renewing: the lease ran out
    holder = await queue.claim()
    assert holder is not None
    assert (holder.id, holder.attempts) == (job_id, 2)

    async with Claim(queue, stale) as claim:
        with pytest.raises(ClaimLost):
            await claim.commit(write_article)
    assert await Article.count() == 0
    (row,) = await rows(f"SELECT status, attempts, outcome FROM ingest_jobs WHERE id = {job_id}")
    assert row == {"status": "processing", "attempts": 2, "outcome": ""}

    async with Claim(queue, holder) as claim:
        done = await claim.commit(write_article)
    assert done.outcome == "created"
    assert await Article.count() == 1
    (row,) = await rows(f"SELECT status, outcome, note FROM ingest_jobs WHERE id = {job_id}")
    assert row == {"status": "done", "outcome": "created", "note": "created, 0 images"}


async def test_an_error_after_the_effects_rolls_them_back(queue: JobQueue, rows: Rows) -> None:
    job_id = await queue.enqueue("crawl", "{}", 0)
    job = await queue.claim()
    assert job is not None

    async def write_then_fail() -> JobDone:
        await write_article()
        raise RuntimeError("disk full")

    async with Claim(queue, job) as claim:
        with pytest.raises(RuntimeError, match="disk full"):
            await claim.commit(write_then_fail)
    assert await Article.count() == 0
    (row,) = await rows(f"SELECT status FROM ingest_jobs WHERE id = {job_id}")
    assert row == {"status": "processing"}
