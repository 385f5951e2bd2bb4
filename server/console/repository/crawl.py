"""SQL of the console's crawl queue view (changes go through ``CrawlTasks``)."""

from __future__ import annotations

from typing import Any

from rk.server.console.repository.where import Where, page_rows


async def task_rows(
    status: str | None, brand_id: int, before: int | None, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` tasks newest first with their brand, of one status or brand if given."""
    where = (
        Where()
        .add("t.status = {}", status, when=bool(status))
        .add("t.brand_id = {}", brand_id, when=bool(brand_id))
        .add("t.id < {}", before, when=before is not None)
    )
    select = (
        "SELECT t.id, t.brand_id, t.source, t.season, t.status, t.priority, t.max_shows,"
        " t.worker, t.attempts, t.shows_submitted, t.last_error, t.created_at, t.updated_at,"
        " t.locked_at, COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
        " FROM crawl_tasks t LEFT JOIN brands b ON b.id = t.brand_id"
    )
    return await page_rows(select, where, "t.id DESC", limit)
