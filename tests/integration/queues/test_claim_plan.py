"""The PostgreSQL claim walks its index in order whatever the table's statistics say.

A queue table analyzed while it was empty (or never analyzed) makes the planner take a deep
backlog for a few rows; left to itself it then plans a bitmap scan that reads and sorts
every pending job on every claim. The claim's transaction rules those plans out.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from rk.core.config import QueueSettings
from rk.server.db.dsn import asyncpg_dsn
from rk.server.db.migrate import migrate
from rk.server.queues.engine import JobQueue
from rk.server.queues.postgres import INDEX_PLANS, SQL

BACKLOG = 3000


def scans(node: dict[str, Any]) -> list[tuple[str, str]]:
    """(node type, relation) of every scan in a JSON plan."""
    found = (
        [(node["Node Type"], node.get("Relation Name", ""))] if "Scan" in node["Node Type"] else []
    )
    for child in node.get("Plans", []):
        found += scans(child)
    return found


async def test_claim_reads_the_backlog_by_index_on_stale_statistics(pg_dsn: str) -> None:
    await migrate(pg_dsn)
    conn = await asyncpg.connect(asyncpg_dsn(pg_dsn))
    try:
        await conn.execute("ANALYZE ingest_jobs")  # statistics of the empty table
        await conn.executemany(
            "INSERT INTO ingest_jobs (kind, status, attempts, payload, last_error, outcome,"
            " note, brand_id, locked_at, next_attempt_at, created_at, updated_at)"
            " VALUES ('crawl', 'pending', 0, $1, '', '', '', 0, 0, $2, $2, $2)",
            [(str(n), n) for n in range(BACKLOG)],
        )
        async with conn.transaction():
            await conn.execute(INDEX_PLANS)
            [(raw,)] = await conn.fetch(
                "EXPLAIN (FORMAT JSON) " + SQL["claim_many"], BACKLOG, 0, 5, 16
            )
            plan = json.loads(raw)[0]["Plan"]
    finally:
        await conn.close()

    on_jobs = [kind for kind, relation in scans(plan) if relation == "ingest_jobs"]
    assert on_jobs
    assert all(kind in ("Index Scan", "Index Only Scan") for kind in on_jobs)

    queue = await JobQueue.open(pg_dsn, QueueSettings())
    try:
        first = await queue.claim()
    finally:
        await queue.close()
    assert first is not None
    assert first.payload == "0"
