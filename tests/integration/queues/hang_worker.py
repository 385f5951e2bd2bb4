"""A worker process for the contract suite: claims one ingest job, reports it, then hangs.

The test kills it with SIGKILL mid-job, as a crashed or OOM-killed worker would die.
Usage: ``python hang_worker.py DSN``; prints ``{"id": …, "attempts": …}`` once claimed.
"""

from __future__ import annotations

import asyncio
import json
import sys

from rk.core.config import QueueSettings
from rk.server.platform.jobs.engine import JobQueue


async def main(dsn: str) -> None:
    """Claim, report on stdout, sleep until killed."""
    queue = await JobQueue.open(dsn, QueueSettings())
    job = await queue.claim()
    if job is None:
        print(json.dumps(None), flush=True)
        return
    print(json.dumps({"id": job.id, "attempts": job.attempts}), flush=True)
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
