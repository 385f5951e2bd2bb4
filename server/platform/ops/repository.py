"""The operations reads: readiness probes and the archive-wide metric counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rk.server.platform.db.sql_rows import rows


async def database_round_trip() -> None:
    """A trivial query, to prove the database answers."""
    await rows("SELECT 1")


async def applied_migration_ids() -> set[str]:
    """The ids of every migration recorded as applied."""
    return {row["id"] for row in await rows("SELECT id FROM rk_migrations")}


async def ingest_job_counts() -> list[dict[str, Any]]:
    """Ingest jobs counted by ``kind``, ``status`` and ``outcome`` (column ``n``)."""
    return await rows(
        "SELECT kind, status, outcome, COUNT(*) AS n FROM ingest_jobs"
        " GROUP BY kind, status, outcome"
    )


async def crawl_task_counts() -> list[dict[str, Any]]:
    """Crawl tasks counted by ``status`` (column ``n``)."""
    return await rows("SELECT status, COUNT(*) AS n FROM crawl_tasks GROUP BY status")


async def done_job_durations(buckets: Sequence[int]) -> list[dict[str, Any]]:
    """Per kind of done job: ``n``, ``total`` claim-to-done seconds and ``le_<b>`` per bucket."""
    cases = ", ".join(
        f"SUM(CASE WHEN updated_at - locked_at <= {b} THEN 1 ELSE 0 END) AS le_{b}" for b in buckets
    )
    return await rows(
        f"SELECT kind, COUNT(*) AS n, COALESCE(SUM(updated_at - locked_at), 0) AS total, {cases}"
        " FROM ingest_jobs WHERE status = 'done' AND locked_at > 0 GROUP BY kind"
    )


async def stored_image_totals() -> dict[str, Any]:
    """Distinct stored image keys (``n``) and their ``bytes``."""
    [stored] = await rows(
        "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM"
        " (SELECT key, MAX(size) AS size FROM images WHERE key <> '' GROUP BY key) AS stored"
    )
    return stored


async def pending_embeddings_by_kind(model: str, failure_cap: int) -> dict[str, int]:
    """Stored images of live articles without a ``model`` vector nor capped failure, by kind."""
    found = await rows(
        "SELECT i.kind, COUNT(*) AS n FROM images i WHERE i.key <> ''"
        " AND NOT EXISTS (SELECT 1 FROM image_embeddings e"
        " WHERE e.image_id = i.id AND e.model = {})"
        " AND NOT EXISTS (SELECT 1 FROM image_embedding_failures f"
        " WHERE f.image_id = i.id AND f.model = {} AND f.failures >= {})"
        " AND EXISTS (SELECT 1 FROM articles a WHERE a.id = i.article_id AND a.deleted_at = 0)"
        " GROUP BY i.kind",
        model,
        model,
        failure_cap,
    )
    return {row["kind"]: row["n"] for row in found}


async def embeddings_failed_at_cap(model: str, failure_cap: int) -> int:
    """Images whose ``model`` embedding failed ``failure_cap`` times and has no vector."""
    [row] = await rows(
        "SELECT COUNT(*) AS n FROM image_embedding_failures f"
        " WHERE f.model = {} AND f.failures >= {} AND NOT EXISTS (SELECT 1"
        " FROM image_embeddings e WHERE e.image_id = f.image_id AND e.model = f.model)",
        model,
        failure_cap,
    )
    return int(row["n"])


async def oldest_unplaced_vector_at() -> int:
    """When the oldest vector still waiting for neighbours was stored (0 when none waits)."""
    [oldest] = await rows(
        "SELECT MIN(created_at) AS t FROM image_embeddings WHERE neighbours_at = 0"
    )
    return int(oldest["t"] or 0)


async def spiders_seen_since(moment: int) -> int:
    """Distinct spider workers that claimed or heartbeated a task at or after ``moment``."""
    found = await rows(
        "SELECT COUNT(DISTINCT worker) AS n FROM crawl_tasks"
        " WHERE worker <> '' AND locked_at >= {}",
        moment,
    )
    return int(found[0]["n"])
