"""rk's side of the queue pair: ``N`` jobs enqueued, then claimed and completed by workers.

The workers share one ``JobQueue`` that claims one job ahead per worker, as the server's
ingest pool does; each claim + complete of a no-op job is the unit of work. Jobs are
enqueued beforehand from eight connections at once (``bench.job_queue.fill``), untimed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from bench.job_queue import backend_cpu_s, drain, fill
from bench.peers.rounds import Sample
from rk.core.api.lookups import get_queue_backend
from rk.core.config import QueueSettings
from rk.server.platform.db.database import default_pool_size, open_database
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.engine import JobQueue

NO_END_S = 3600.0
"""Drain until the queue runs dry; this only bounds a stuck run."""


async def consume(dsn: str, workers: int) -> tuple[int, float, float, float]:
    """Every queued job claimed and completed by ``workers``: (jobs, wall s, this process's
    CPU s, PostgreSQL backends' CPU s)."""
    db = await open_database(dsn, pool_size=default_pool_size(workers))
    backend = get_queue_backend(dsn)(db)
    queue = JobQueue(backend, QueueSettings(), db=db, owns_db=True, prefetch=workers)
    try:
        server0, client0 = await backend_cpu_s(dsn), time.process_time()
        done, seconds, _ = await drain([queue] * workers, NO_END_S)
        client = time.process_time() - client0
        server1 = await backend_cpu_s(dsn)
    finally:
        await queue.close()
    server = sum(used - server0.get(pid, 0.0) for pid, used in server1.items())
    return done, seconds, client, server


async def rk_round(
    database: Callable[[], AbstractAsyncContextManager[str]], jobs: int, workers: int
) -> Sample:
    """``jobs`` no-op jobs through rk's queue in a fresh database."""
    async with database() as dsn:
        await migrate(dsn)
        await fill(dsn, jobs)
        done, seconds, client, server = await consume(dsn, workers)
    if done != jobs:
        raise RuntimeError(f"rk's queue completed {done} of {jobs} jobs")
    return Sample(done, seconds, client + server, {"PG µs/job": server / done * 1e6})
