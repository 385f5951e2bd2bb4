"""The PostgreSQL claim walks its index in order whatever the table's statistics say.

A queue table analyzed while it was empty (or never analyzed) makes the planner take a deep
backlog for a few rows; left to itself it then plans a bitmap scan, or a scan of another
index on ``status`` (the admin console's), that reads and sorts every pending job on every
claim. The claim's transaction rules those plans out.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from rk.core.config import QueueSettings
from rk.server.platform.db.dsn import asyncpg_dsn
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.postgres import INDEX_PLANS, SQL

BACKLOG = 20_000


def nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of a JSON plan, ``node`` first."""
    return [node, *(n for child in node.get("Plans", []) for n in nodes(child))]


def reads_pending(node: dict[str, Any]) -> bool:
    """Whether this node scans pending jobs (the ``ready`` branch): by their partial index,
    or with ``status = 'pending'`` as a condition or filter of another scan."""
    conditions = node.get("Index Cond", "") + node.get("Filter", "")
    return node.get("Index Name") == "ingest_jobs_due_idx" or "'pending'" in conditions


def scans(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """(node type, relation) of every scan in a JSON plan."""
    return [
        (node["Node Type"], node.get("Relation Name", ""))
        for node in nodes(plan)
        if "Scan" in node["Node Type"]
    ]


@pytest.mark.parametrize("analyzed", ["empty", "drained"])
async def test_claim_reads_the_backlog_by_index_on_stale_statistics(
    pg_dsn: str, analyzed: str
) -> None:
    """Statistics of the empty table, or of a drained queue (every job done) that then
    gets a backlog: the claim still walks its own index and sorts nothing of the backlog."""
    await migrate(pg_dsn)
    conn = await asyncpg.connect(asyncpg_dsn(pg_dsn))
    try:
        if analyzed == "empty":
            await conn.execute("ANALYZE ingest_jobs")
        await conn.execute(
            "INSERT INTO ingest_jobs (kind, status, attempts, payload, last_error, outcome,"
            " note, brand_id, locked_at, next_attempt_at, created_at, updated_at)"
            " SELECT 'crawl', 'pending', 0, n::text, '', '', '', 0, 0, n, n, n"
            " FROM generate_series(0, $1 - 1) AS n",
            BACKLOG,
        )
        if analyzed == "drained":
            await conn.execute("UPDATE ingest_jobs SET status = 'done'")
            await conn.execute("ANALYZE ingest_jobs")
            await conn.execute("UPDATE ingest_jobs SET status = 'pending'")
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
    pending = [node for node in nodes(plan) if reads_pending(node)]
    assert [node["Index Name"] for node in pending] == ["ingest_jobs_due_idx"]
    sorted_backlog = [
        node
        for node in nodes(plan)
        if node["Node Type"] == "Sort" and any(map(reads_pending, nodes(node)))
    ]
    assert not sorted_backlog, "the claim sorts every pending job instead of walking its index"

    queue = await JobQueue.open(pg_dsn, QueueSettings())
    try:
        first = await queue.claim()
    finally:
        await queue.close()
    assert first is not None
    assert first.payload == "0"
