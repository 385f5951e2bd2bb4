"""The console's crawl queue view: tasks with their brand, newest first, a keyset page.

Changes (add, batch add, retry, cancel, delete) go through ``CrawlTasks``, the same queue
the spiders and ``rk crawl`` use; this module only reads.
"""

from __future__ import annotations

from msgspec import Struct

from rk.server.crawl import STATUSES
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.http.errors import ApiError


class TaskRow(Struct, frozen=True, kw_only=True):
    """One crawl task as the queue page lists it."""

    id: int
    brand_id: int
    brand: str
    brand_uid: str
    source: str
    season: str
    status: str
    priority: int
    max_shows: int
    worker: str
    attempts: int
    shows_submitted: int
    last_error: str
    created_at: int
    updated_at: int
    locked_at: int


class TaskPage(Struct, frozen=True, kw_only=True):
    """A page of tasks and the cursor of the next one (None on the last)."""

    items: list[TaskRow]
    next_before: int | None


async def list_tasks(
    status: str | None, before: int | None, limit: int = 50, brand_id: int = 0
) -> TaskPage:
    """Tasks newest first, optionally of one status or brand, below ``before``."""
    if status is not None and status not in STATUSES:
        raise ApiError(f"status must be one of {', '.join(sorted(STATUSES))}, not {status!r}")
    where: list[str] = []
    args: list[object] = []
    if status:
        where.append("t.status = {}")
        args.append(status)
    if brand_id:
        where.append("t.brand_id = {}")
        args.append(brand_id)
    if before is not None:
        where.append("t.id < {}")
        args.append(before)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    found = await rows(
        "SELECT t.id, t.brand_id, t.source, t.season, t.status, t.priority, t.max_shows,"
        " t.worker, t.attempts, t.shows_submitted, t.last_error, t.created_at, t.updated_at,"
        " t.locked_at, COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
        f" FROM crawl_tasks t LEFT JOIN brands b ON b.id = t.brand_id {clause}"
        " ORDER BY t.id DESC LIMIT {}",
        *args,
        limit + 1,
    )
    items = [
        TaskRow(
            id=int(row["id"]),
            brand_id=int(row["brand_id"]),
            brand=str(row["brand"]),
            brand_uid=str(row["brand_uid"]),
            source=str(row["source"]),
            season=str(row["season"]),
            status=str(row["status"]),
            priority=int(row["priority"]),
            max_shows=int(row["max_shows"]),
            worker=str(row["worker"]),
            attempts=int(row["attempts"]),
            shows_submitted=int(row["shows_submitted"]),
            last_error=str(row["last_error"]),
            created_at=int(row["created_at"]),
            updated_at=int(row["updated_at"]),
            locked_at=int(row["locked_at"]),
        )
        for row in found[:limit]
    ]
    return TaskPage(items=items, next_before=items[-1].id if len(found) > limit else None)
