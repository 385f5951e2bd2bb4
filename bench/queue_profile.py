"""Where PostgreSQL's time goes per queue job: ``pg_stat_statements``, WAL and HOT counts.

Fills a fresh database on ``--pg-dsn``'s server with ``--jobs`` no-op jobs (untimed), then
16 workers sharing one queue claim and complete them all, as in ``bench.peers``'s queue pair.
Prints each statement's calls, execution µs per job and WAL records, the table's updates and
HOT updates, each index's size, and PostgreSQL's CPU per job from ``/proc``. The server must
preload ``pg_stat_statements`` (``shared_preload_libraries``); the bench creates the
extension in its database.

    .venv/bin/python -m bench.queue_profile --pg-dsn postgresql://postgres@127.0.0.1:5499/test
"""

from __future__ import annotations

import argparse
import asyncio

import asyncpg

from bench.job_queue import DEFAULT_PG, fill, postgres_db
from bench.peers.jobs_rk import consume
from rk.server.platform.db.migrate import migrate

STATEMENTS = """
    SELECT calls, total_exec_time, wal_records,
           left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS q
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    ORDER BY total_exec_time DESC LIMIT 8"""
INDEXES = """
    SELECT indexrelname, pg_relation_size(indexrelid) AS size FROM pg_stat_user_indexes
    WHERE relname = 'ingest_jobs' ORDER BY indexrelname"""


async def profile(admin_dsn: str, jobs: int, workers: int) -> str:
    """One fill-and-drain round in a fresh database; the report."""
    async with postgres_db(admin_dsn) as dsn:
        await migrate(dsn)
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            await fill(dsn, jobs)
            await conn.execute("ANALYZE ingest_jobs")
            await conn.execute("SELECT pg_stat_statements_reset(); SELECT pg_stat_reset()")
            done, seconds, client, server = await consume(dsn, workers)
            await asyncio.sleep(1.0)  # table counters reach the view after a moment
            statements = await conn.fetch(STATEMENTS)
            table = await conn.fetchrow(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                " WHERE relname = 'ingest_jobs'"
            )
            indexes = await conn.fetch(INDEXES)
        finally:
            await conn.close()
    lines = [
        f"{done:,} jobs in {seconds:.2f} s ({done / seconds:,.0f}/s), {workers} workers; "
        f"PostgreSQL CPU {server / done * 1e6:.0f} µs/job, this process {client / done * 1e6:.0f}",
        "",
        "| statement | calls | exec µs/job | WAL records/job |",
        "|---|---:|---:|---:|",
    ]
    for row in statements:
        exec_us = row["total_exec_time"] * 1e3 / done
        lines.append(
            f"| `{row['q']}` | {row['calls']:,} | {exec_us:.1f} | {row['wal_records'] / done:.1f} |"
        )
    lines += [
        "",
        f"updates {table['n_tup_upd']:,}, of them HOT {table['n_tup_hot_upd']:,}",
        "indexes: " + ", ".join(f"{r['indexrelname']} {r['size'] // 1024} KiB" for r in indexes),
    ]
    return "\n".join(lines)


def main() -> None:
    """Parse options, run one round, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-dsn", default=DEFAULT_PG, help="a server preloading the extension")
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()
    print(asyncio.run(profile(args.pg_dsn, args.jobs, args.workers)))


if __name__ == "__main__":
    main()
