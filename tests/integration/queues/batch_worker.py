"""A worker process for the prefetch tests: WORKERS claim loops on one queue that claims ahead.

Usage: ``python batch_worker.py DSN WORKERS run|hang``.
``run``: claim and complete until the queue is empty; print the claims ``[[id, attempts], …]``.
``hang``: the workers claim together, round after round (completing the last round's jobs),
until a batch has claimed jobs ahead; print ``{"started": [ids], "ahead": [ids]}`` and sleep until
killed (SIGKILL, as a crashed process dies).
"""

from __future__ import annotations

import asyncio
import json
import sys

from rk.core.api.queues import Job
from rk.core.config import QueueSettings
from rk.server.platform.jobs.engine import JobQueue


async def run(queue: JobQueue, workers: int) -> None:
    """Drain the queue with ``workers`` loops; print every claim."""
    claims: list[tuple[int, int]] = []

    async def loop() -> None:
        while (job := await queue.claim()) is not None:
            claims.append((job.id, job.attempts))
            if not await queue.complete(job, "noop", "batch worker"):
                raise RuntimeError(f"job {job.id} lost its claim")

    await asyncio.gather(*(loop() for _ in range(workers)))
    await queue.close()
    print(json.dumps(claims), flush=True)


async def hang(queue: JobQueue, workers: int) -> None:
    """Hold started jobs and jobs claimed ahead; report them; wait to be killed."""
    started: list[Job] = []
    while not len(queue.prefetched):  # rounds of claims until a batch claimed ahead
        for job in started:
            await queue.complete(job, "noop", "an earlier round")
        got = await asyncio.gather(*(queue.claim() for _ in range(workers)))
        started = [job for job in got if job is not None]
    ahead = [job.id for job in queue.prefetched.jobs()]
    print(json.dumps({"started": [job.id for job in started], "ahead": ahead}), flush=True)
    await asyncio.sleep(3600)


async def main(dsn: str, workers: int, mode: str) -> None:
    """Open a queue that claims up to one job ahead per worker, and run ``mode``."""
    queue = await JobQueue.open(dsn, QueueSettings(), prefetch=workers)
    await (run if mode == "run" else hang)(queue, workers)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
