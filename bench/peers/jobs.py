"""The queue pair: rk's job queue against procrastinate on the same PostgreSQL, one run.

Each round of each tool makes a fresh database on the server at ``admin_dsn``, queues
``jobs`` no-op jobs in bulk (untimed), then times ``workers`` workers taking every one of
them. CPU is this process's (both tools run in it) plus the PostgreSQL backends serving the
round's database, read from ``/proc``; the PostgreSQL part is also shown alone. rk on SQLite
(a temporary file) is a row of its own.
"""

from __future__ import annotations

from bench.job_queue import postgres_db, sqlite_db
from bench.peers.jobs_procrastinate import procrastinate_round
from bench.peers.jobs_rk import rk_round
from bench.peers.rounds import Sample, Side, alternate
from bench.peers.table import render


async def run(admin_dsn: str, jobs: int, workers: int, rounds: int) -> str:
    """Every side's ``rounds`` rounds of ``jobs`` jobs; the table."""

    async def rk_pg() -> Sample:
        return await rk_round(lambda: postgres_db(admin_dsn), jobs, workers)

    async def rk_sqlite() -> Sample:
        sample = await rk_round(sqlite_db, jobs, workers)
        return Sample(sample.items, sample.seconds, sample.cpu_s, {"PG µs/job": 0.0})

    async def peer_round() -> Sample:
        return await procrastinate_round(admin_dsn, jobs, workers)

    on_pg = Side("rk, PostgreSQL")
    on_sqlite = Side("rk, SQLite (no PostgreSQL)")
    peer = Side("procrastinate, PostgreSQL")
    await alternate([(on_pg, rk_pg), (on_sqlite, rk_sqlite), (peer, peer_round)], rounds)
    title = (
        f"queue: {jobs:,} no-op jobs queued in bulk, then claimed and completed by {workers} "
        f"workers; CPU = the Python process + PostgreSQL backends"
    )
    return render(title, [on_pg, on_sqlite], peer, "procrastinate", extras=("PG µs/job",))
