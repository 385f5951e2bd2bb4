"""SQL of the dashboard: grouped counts over indexed status columns."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows


async def crawl_status_counts() -> list[dict[str, Any]]:
    """``status`` and ``n`` of crawl tasks."""
    return await rows("SELECT status, COUNT(*) AS n FROM crawl_tasks GROUP BY status")


async def open_job_counts() -> list[dict[str, Any]]:
    """``status`` and ``n`` of pending and processing ingest jobs."""
    return await rows(
        "SELECT status, COUNT(*) AS n FROM ingest_jobs"
        " WHERE status <> 'done' AND status IN ('pending', 'processing') GROUP BY status"
    )


async def outcome_counts(status: str, since: int) -> list[dict[str, Any]]:
    """``outcome`` and ``n`` of jobs that reached ``status`` since ``since``."""
    return await rows(
        "SELECT outcome, COUNT(*) AS n FROM ingest_jobs WHERE status = {}"
        " AND status IN ('done', 'failed') AND updated_at >= {} GROUP BY outcome",
        status,
        since,
    )
