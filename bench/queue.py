"""Ingest-queue throughput: jobs claimed + completed per second, by engine and worker count.

Each worker is an asyncio task with its own ``JobQueue`` (own backend, own connection), so
the database alone arbitrates, as it would between backend processes. The 1-worker row
of each engine is the baseline measured in the same run; the last column compares to it.

    .venv/bin/python bench/queue.py [--jobs 1000] [--workers 1,4,16] [--pg-dsn DSN]

PostgreSQL runs in a throw-away database created through ``--pg-dsn`` (default
``$RK_TEST_PG_DSN`` or postgres@127.0.0.1/test) and dropped afterwards; SQLite in a
temporary file.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder leads sys.path and this file would shadow the stdlib
# ``queue`` module that asyncio's thread pool and piccolo import: take the folder out.
if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from rk.core.config import QueueSettings
from rk.server.db.migrate import migrate
from rk.server.queues.engine import JobQueue

DEFAULT_PG = os.environ.get("RK_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/test")


@asynccontextmanager
async def postgres_db(admin_dsn: str) -> AsyncIterator[str]:
    """A fresh PostgreSQL database, dropped afterwards."""
    name = f"rk_bench_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    try:
        yield urlunsplit(urlsplit(admin_dsn)._replace(path=f"/{name}"))
    finally:
        conn = await asyncpg.connect(admin_dsn)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


@asynccontextmanager
async def sqlite_db() -> AsyncIterator[str]:
    """A SQLite file in a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"


async def run_round(dsn: str, jobs: int, workers: int) -> tuple[float, float]:
    """Enqueue ``jobs``, drain them with ``workers``; (enqueue/s, claim+complete/s)."""
    settings = QueueSettings()
    producer = await JobQueue.open(dsn, settings)
    start = time.perf_counter()
    for n in range(jobs):
        await producer.enqueue("crawl", f'{{"n": {n}}}', n % 10)
    enqueue_rate = jobs / (time.perf_counter() - start)
    await producer.close()

    queues = [await JobQueue.open(dsn, settings) for _ in range(workers)]

    async def work(queue: JobQueue) -> int:
        done = 0
        while (job := await queue.claim()) is not None:
            if not await queue.complete(job, "created", "bench"):
                raise RuntimeError(f"job {job.id} lost its claim")
            done += 1
        return done

    for queue in queues:  # open each connection before the clock starts
        warm = await queue.claim()
        if warm is not None:
            await queue.release(warm)
    start = time.perf_counter()
    counts = await asyncio.gather(*(work(q) for q in queues))
    elapsed = time.perf_counter() - start
    for queue in queues:
        await queue.close()
    if sum(counts) != jobs:
        raise RuntimeError(f"processed {sum(counts)} of {jobs} jobs")
    return enqueue_rate, jobs / elapsed


async def bench_engine(name: str, db: AsyncIterator[str], jobs: int, workers: list[int]) -> None:
    """One engine: a fresh database per worker count, a row each."""
    baseline: float | None = None
    for count in workers:
        async with db() as dsn:  # type: ignore[operator]
            await migrate(dsn)
            enqueue_rate, rate = await run_round(dsn, jobs, count)
        baseline = baseline or rate
        print(
            f"| {name:<10} | {count:>7} | {jobs:>6} | {enqueue_rate:>10.0f} "
            f"| {rate:>13.0f} | {rate / baseline:>11.2f}x |"
        )


async def main() -> None:
    """Parse options, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=1000, help="jobs per round (default 1000)")
    parser.add_argument("--workers", default="1,4,16", help="worker counts (default 1,4,16)")
    parser.add_argument("--pg-dsn", default=DEFAULT_PG, help="where to create the PG database")
    parser.add_argument("--engines", default="postgresql,sqlite", help="engines to measure")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    engines = {
        "postgresql": lambda: postgres_db(args.pg_dsn),
        "sqlite": sqlite_db,
    }
    print("| engine     | workers |   jobs | enqueue/s | claim+done/s | vs 1 worker |")
    print("|------------|---------|--------|-----------|--------------|-------------|")
    for name in args.engines.split(","):
        await bench_engine(name, engines[name], args.jobs, workers)  # type: ignore[arg-type]


if __name__ == "__main__":
    asyncio.run(main())
