"""SQL of the console's ingest jobs: filtered pages, one job, an admin's retry."""

from __future__ import annotations

import time
from typing import Any

from rk.server.console.job_rows import BRAND_COLUMNS, JOB_COLUMNS
from rk.server.console.repository.where import Where, page_rows
from rk.server.platform.db.sql_rows import marks, rows
from rk.server.platform.db.tables import IngestJob

SELECT_JOBS = (
    f"SELECT {JOB_COLUMNS}, {BRAND_COLUMNS} FROM ingest_jobs j"
    " LEFT JOIN brands b ON b.id = j.brand_id"
)


async def job_page_rows(
    filters: dict[str, str], before: int | None, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` jobs newest first whose columns equal the non-empty ``filters``."""
    where = Where()
    for column, value in filters.items():
        where.add(f"j.{column} = {{}}", value, when=bool(value))
    where.add("j.id < {}", before, when=before is not None)
    # Literals the partial indexes of 0074 need: done jobs and crawl jobs are walked by id.
    where.require("j.status <> 'done'", when=filters.get("status", "") not in ("", "done"))
    where.require("j.kind <> 'crawl'", when=filters.get("kind", "") not in ("", "crawl"))
    return await page_rows(SELECT_JOBS, where, "j.id DESC", limit)


async def job_by_id(job_id: int) -> dict[str, Any] | None:
    """One job with its brand."""
    found = await rows(f"{SELECT_JOBS} WHERE j.id = {{}}", job_id)
    return found[0] if found else None


async def requeue_failed(job_id: int) -> bool:
    """Put a failed job back to pending, attempts reset, due now; False if it is not failed."""
    now = int(time.time())
    changed = (
        await IngestJob.update(
            {
                IngestJob.status: "pending",
                IngestJob.attempts: 0,
                IngestJob.next_attempt_at: now,
                IngestJob.locked_at: 0,
                IngestJob.updated_at: now,
            }
        )
        .where((IngestJob.id == job_id) & (IngestJob.status == "failed"))
        .returning(IngestJob.id)
    )
    return bool(changed)


async def articles_of_shows(source: str, show_keys: list[str]) -> list[dict[str, Any]]:
    """``id`` and ``show_key`` of the articles of ``source`` with these show keys."""
    return await rows(
        "SELECT id, show_key FROM articles"
        f" WHERE source = {{}} AND show_key IN ({marks(len(show_keys))})",
        source,
        *show_keys,
    )
