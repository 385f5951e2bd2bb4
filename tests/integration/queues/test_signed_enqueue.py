"""Signed enqueues on both engines: a job and its request signature are written together.

Concurrent requests share one batch (one round trip); each still gets its own job, a
replayed signature gets none, and a job whose write fails fails alone, leaving no row.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from rk.core.api.queues import SignedJob
from rk.core.config import QueueSettings
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.signed_batches import SignedBatches
from tests.integration.queues.helpers import Clock, Rows


@pytest.fixture
async def queue(queue_dsn: str, clock: Clock) -> AsyncIterator[JobQueue]:
    made = await JobQueue.open(queue_dsn, QueueSettings(), clock=clock)
    yield made
    await made.close()


def sig(n: int) -> str:
    return f"{n:064x}"


async def test_concurrent_requests_each_get_their_own_job(queue: JobQueue, rows: Rows) -> None:
    ids = await asyncio.gather(
        *(queue.enqueue_signed("crawl", f"show {n}", n, sig(n), 2_000_000_000) for n in range(30))
    )
    assert None not in ids
    assert len(set(ids)) == 30
    found = {
        r["id"]: (r["payload"], r["brand_id"]) for r in await rows("SELECT * FROM ingest_jobs")
    }
    assert found == {job_id: (f"show {n}", n) for n, job_id in enumerate(ids)}
    signed = await rows("SELECT signature FROM signed_requests")
    assert sorted(r["signature"] for r in signed) == [sig(n) for n in range(30)]


async def test_a_replayed_signature_makes_no_job(queue: JobQueue, rows: Rows) -> None:
    together = await asyncio.gather(
        *(queue.enqueue_signed("crawl", "same", 0, sig(1), 2_000_000_000) for _ in range(5))
    )
    assert sorted(together, key=lambda x: x is None)[1:] == [None] * 4
    first = next(job_id for job_id in together if job_id is not None)
    assert await queue.enqueue_signed("crawl", "again", 0, sig(1), 2_000_000_000) is None
    assert [r["id"] for r in await rows("SELECT id FROM ingest_jobs")] == [first]


async def test_a_failed_write_fails_only_its_request(
    queue: JobQueue, clock: Clock, rows: Rows
) -> None:
    batches = SignedBatches(queue.backend, clock)

    def job(n: int, brand_id: int) -> SignedJob:
        return SignedJob(
            kind="crawl",
            payload=f"show {n}",
            brand_id=brand_id,
            signature=sig(n),
            expires_at=2_000_000_000,
        )

    out_of_range = 2**63  # no BIGINT holds it: the statement carrying it fails
    answers = await asyncio.gather(
        *(batches.enqueue(job(n, out_of_range if n == 3 else n)) for n in range(6)),
        return_exceptions=True,
    )
    assert isinstance(answers[3], Exception)
    good = [a for n, a in enumerate(answers) if n != 3]
    assert all(isinstance(a, int) for a in good)
    found = {r["id"]: r["payload"] for r in await rows("SELECT id, payload FROM ingest_jobs")}
    assert found == {a: f"show {n}" for n, a in enumerate(answers) if n != 3}
    signed = await rows("SELECT signature FROM signed_requests")
    assert sig(3) not in {r["signature"] for r in signed}
    assert len(signed) == 5
