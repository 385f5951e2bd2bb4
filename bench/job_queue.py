"""Ingest-queue throughput: jobs claimed + completed per second, by engine and worker count.

Each worker is an asyncio task. In the ``own`` layout each has its own ``JobQueue`` (own
backend, own connection), so the database alone arbitrates, as it would between backend
processes; in the ``shared`` layout they share one, as the workers of one server process
do (their claims and completions then go to the database together). ``--prefetch`` says
how many jobs a queue may claim ahead of its workers: ``workers`` is one per worker sharing
it, as the server's queue does (1 in the ``own`` layout), ``0`` none (claims only for the
workers waiting). The 1-worker row of each engine, layout and prefetch is the baseline
measured in the same run; the last column compares to it.
Every row is ``--repeat`` timed rounds of ``--seconds`` each over a queue filled beforehand
(so no round runs dry); the best is shown with the worst and the spread between them. On a
shared machine the rates follow the load; the CPU each job costs, in this process and in
the PostgreSQL backends serving its database (read from ``/proc``), does much less, so it
is shown too (the mean over the rounds).

    .venv/bin/python -m bench.job_queue [--seconds 5] [--repeat 3] [--workers 1,4,16]
                                        [--engines postgresql,sqlite] [--pg-dsn DSN]
                                        [--layouts own,shared] [--prefetch 0,workers]

PostgreSQL runs in a throw-away database created through ``--pg-dsn`` (default
``$RK_TEST_PG_DSN`` or postgres@127.0.0.1/test) and dropped afterwards; SQLite in a
temporary file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from rk.core.api.lookups import get_queue_backend
from rk.core.config import QueueSettings
from rk.server.platform.db.database import default_pool_size, open_database
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.engine import JobQueue

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


async def fill(dsn: str, jobs: int, producers: int = 8) -> None:
    """Enqueue ``jobs`` from ``producers`` connections at once (not timed)."""
    settings = QueueSettings()

    async def produce(offset: int) -> None:
        queue = await JobQueue.open(dsn, settings)
        try:
            for n in range(offset, jobs, producers):
                await queue.enqueue("crawl", f'{{"n": {n}}}', n % 10)
        finally:
            await queue.close()

    await asyncio.gather(*(produce(p) for p in range(producers)))


async def drain(queues: list[JobQueue], seconds: float) -> tuple[int, float, bool]:
    """Claim + complete until ``seconds`` pass; (jobs, elapsed, whether the queue ran dry)."""
    deadline = time.perf_counter() + seconds
    dry = False

    async def work(queue: JobQueue) -> int:
        nonlocal dry
        done = 0
        while time.perf_counter() < deadline:
            job = await queue.claim()
            if job is None:
                dry = True
                break
            if not await queue.complete(job, "created", "bench"):
                raise RuntimeError(f"job {job.id} lost its claim")
            done += 1
        return done

    start = time.perf_counter()
    counts = await asyncio.gather(*(work(q) for q in queues))
    return sum(counts), time.perf_counter() - start, dry


async def backend_cpu_s(dsn: str) -> dict[int, float]:
    """CPU seconds used so far by each PostgreSQL backend on ``dsn``'s database (SQLite: none)."""
    if not dsn.startswith("postgres"):
        return {}
    conn = await asyncpg.connect(dsn)
    try:
        pids = await conn.fetch(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return proc_cpu_s([pid for (pid,) in pids])


def proc_cpu_s(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system) each process has used, from ``/proc``; gone ones left out."""
    used: dict[int, float] = {}
    for pid in pids:
        try:  # fields after the command's closing parenthesis; utime, stime are 14th, 15th
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # not on this machine, or gone
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


class Round(NamedTuple):
    """One timed round: jobs per second, and CPU microseconds per job here and in PostgreSQL."""

    rate: float
    client_us: float
    server_us: float


async def timed_round(queues: list[JobQueue], dsn: str, seconds: float) -> Round | None:
    """One drain of ``seconds``; None when the queue ran dry."""
    server0, client0 = await backend_cpu_s(dsn), time.process_time()
    done, elapsed, dry = await drain(queues, seconds)
    client = time.process_time() - client0
    server1 = await backend_cpu_s(dsn)
    if dry or not done:
        return None
    server = sum(used - server0.get(pid, 0.0) for pid, used in server1.items())
    return Round(done / elapsed, client / done * 1e6, server / done * 1e6)


async def measure(
    dsn: str, workers: int, seconds: float, repeats: int, shared: bool, ahead: str
) -> list[Round]:
    """``repeats`` rounds of ``seconds`` each of claim+complete, over one filled queue.

    A short untimed drain estimates the rate, so the queue is filled once with enough jobs
    that no timed round runs dry (a round that does is rerun with more jobs).
    """
    settings = QueueSettings()
    if shared:  # over a database sized as the server sizes its own for ``workers``
        prefetch = workers if ahead == "workers" else int(ahead)
        db = await open_database(dsn, pool_size=default_pool_size(workers))
        backend = get_queue_backend(dsn)(db)
        one = JobQueue(backend, settings, db=db, owns_db=True, prefetch=prefetch)
        queues = [one] * workers
    else:
        prefetch = 1 if ahead == "workers" else int(ahead)
        queues = [await JobQueue.open(dsn, settings, prefetch=prefetch) for _ in range(workers)]
    try:
        await fill(dsn, 500)
        done, elapsed, _ = await drain(queues, 60)
        estimate = done / elapsed
        await fill(dsn, int(estimate * seconds * repeats * 1.5) + 500)
        rounds: list[Round] = []
        while len(rounds) < repeats:
            timed = await timed_round(queues, dsn, seconds)
            if timed is None:
                await fill(dsn, int(estimate * seconds * (repeats - len(rounds)) * 2))
                continue
            rounds.append(timed)
        return rounds
    finally:
        for queue in set(queues):
            await queue.close()


async def bench_engine(
    name: str, db: Callable[[], AbstractAsyncContextManager[str]], args: argparse.Namespace
) -> None:
    """One engine: a fresh database per layout, prefetch and worker count, a row each."""
    for layout in args.layouts.split(","):
        for ahead in args.prefetch.split(","):
            baseline: float | None = None
            for count in [int(w) for w in args.workers.split(",")]:
                async with db() as dsn:
                    await migrate(dsn)
                    rounds = await measure(
                        dsn, count, args.seconds, args.repeat, layout == "shared", ahead
                    )
                rates = [r.rate for r in rounds]
                best = max(rates)
                baseline = baseline or best
                spread = (best - min(rates)) / best * 100
                cpu = (
                    f"{statistics.mean(r.client_us for r in rounds):.0f} + "
                    f"{statistics.mean(r.server_us for r in rounds):.0f}"
                )
                print(
                    f"| {name:<10} | {layout:<6} | {ahead:>8} | {count:>7} | {best:>12.0f} "
                    f"| {min(rates):>8.0f} | {spread:>6.1f}% | {best / baseline:>11.2f}x "
                    f"| {cpu:>16} |",
                    flush=True,
                )


async def main() -> None:
    """Parse options, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per round (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per row; best shown")
    parser.add_argument("--workers", default="1,4,16", help="worker counts (default 1,4,16)")
    parser.add_argument("--pg-dsn", default=DEFAULT_PG, help="where to create the PG database")
    parser.add_argument("--engines", default="postgresql,sqlite", help="engines to measure")
    parser.add_argument("--layouts", default="own,shared", help="queue per worker, or one")
    parser.add_argument(
        "--prefetch", default="workers", help="jobs claimed ahead: N or 'workers' (default)"
    )
    args = parser.parse_args()
    engines: dict[str, Callable[[], AbstractAsyncContextManager[str]]] = {
        "postgresql": lambda: postgres_db(args.pg_dsn),
        "sqlite": sqlite_db,
    }
    unknown = sorted(set(args.engines.split(",")) - set(engines))
    if unknown:
        parser.error(f"unknown engine {', '.join(unknown)}: choose from {', '.join(engines)}")
    print(
        f"{args.repeat} rounds of {args.seconds:g} s per row, the best shown; "
        f"load average {os.getloadavg()[0]:.1f} at start"
    )
    print(
        "| engine     | layout | prefetch | workers | claim+done/s | worst/s | spread "
        "| vs 1 worker | CPU µs/job py+pg |"
    )
    print(
        "|------------|--------|----------|---------|--------------|---------|--------"
        "|-------------|------------------|"
    )
    for name in args.engines.split(","):
        await bench_engine(name, engines[name], args)


if __name__ == "__main__":
    asyncio.run(main())
