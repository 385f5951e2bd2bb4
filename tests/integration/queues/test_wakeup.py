"""Idle ingest workers wake on a new job instead of waiting for their next poll.

The workers poll once an hour here, so a job they run was announced to them: on
PostgreSQL by ``NOTIFY`` from another process's enqueue, on SQLite by the process's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from rk.core.api.plugins import get_plugin_manager
from rk.core.api.queues import Job
from rk.core.config import QueueSettings
from rk.server.ingest.worker import IngestWorkers
from rk.server.platform.jobs.claim import Claim
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone
from tests.integration.queues.helpers import Clock

HOUR_S = 3600.0
HANG_GUARD_S = 60  # only ends a broken run: the poll alone would take an hour


@pytest.fixture(params=[0, 2], ids=["no-prefetch", "prefetch"])
async def queue(
    queue_dsn: str, clock: Clock, request: pytest.FixtureRequest
) -> AsyncIterator[JobQueue]:
    """The workers' queue, on a database of its own (a backend process), claiming ahead or not."""
    queue = await JobQueue.open(queue_dsn, QueueSettings(), clock=clock, prefetch=request.param)
    yield queue
    await queue.close()


async def test_an_idle_worker_wakes_on_a_new_job(
    queue: JobQueue, queue_dsn: str, clock: Clock
) -> None:
    ran: asyncio.Queue[int] = asyncio.Queue()

    async def handler(job: Job, claim: Claim) -> JobDone:
        ran.put_nowait(job.id)
        return JobDone(outcome="noop", note="woken")

    assert await queue.watch()
    workers = IngestWorkers(
        queue, {"crawl": handler}, get_plugin_manager(), count=2, poll_interval_s=HOUR_S
    )
    workers.start()
    producer = queue
    if queue_dsn.startswith("postgres"):  # NOTIFY reaches other processes too
        producer = await JobQueue.open(queue_dsn, QueueSettings(), clock=clock)
    try:
        await asyncio.sleep(0)  # the workers find nothing and go idle
        for n in range(3):
            job_id = await producer.enqueue("crawl", str(n), 0)
            assert await asyncio.wait_for(ran.get(), HANG_GUARD_S) == job_id
        assert queue.wakeups >= 3
    finally:
        await workers.stop()
        if producer is not queue:
            await producer.close()


async def test_a_job_announced_as_a_worker_goes_idle_wakes_it(queue: JobQueue) -> None:
    """asyncpg runs a NOTIFY's callback with ``call_soon``, so one read with the answer of a
    claim that found nothing runs after the worker's check of the count and before its wait
    starts: the worker must still wake, not sleep out its poll."""
    workers = IngestWorkers(queue, {}, get_plugin_manager(), count=1, poll_interval_s=HOUR_S)
    seen = queue.wakeups  # as the worker read it before its claim
    idle = asyncio.ensure_future(workers._idle(seen))  # checks the count first
    asyncio.get_running_loop().call_soon(queue._pulse)  # then the announcement's callback
    await asyncio.wait_for(idle, timeout=10)
    assert queue.wakeups == seen + 1
