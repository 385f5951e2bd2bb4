"""The PostgreSQL crawl-task store: claims with ``FOR UPDATE SKIP LOCKED``; only SQL here."""

from __future__ import annotations

from rk.server.crawl import repository as shared
from rk.server.crawl.repository import ClaimedTask, CrawlTaskRow, TaskState
from rk.server.platform.db.pg_database import PgDatabase

BATCH_LOCK_KEY = 0x726B_6372_6177
"""Advisory lock held while a batch checks for active tasks and inserts, so two batches
cannot both queue the same brand."""

FENCE = "id = $1 AND status = $2 AND worker = $3 AND attempts = $4"

SQL = {
    "brand_exists": "SELECT EXISTS (SELECT 1 FROM brands WHERE id = $1)",
    "insert": f"""{shared.INSERT}, season)
        VALUES ($1, $2, 'queued', $3, $4, '', 0, 0, 0, '', $5, $5, $6)
        RETURNING id""",
    "batch_lock": f"SELECT pg_advisory_xact_lock({BATCH_LOCK_KEY})",
    "insert_by_prefix": f"""{shared.INSERT})
        SELECT b.id, $2::varchar, 'queued', $3, $4, '', 0, 0, 0, '', $6, $6
        FROM brands b
        WHERE lower(b.name) LIKE $1 ESCAPE '\\'
          AND NOT EXISTS (
              SELECT 1 FROM crawl_tasks t
              WHERE t.brand_id = b.id AND t.source = $2 AND t.status IN ('queued', 'running'))
        ORDER BY lower(b.name) COLLATE "C", b.id
        LIMIT $5
        RETURNING id""",
    # Each candidate query skips rows other claimers hold; the better of the two wins.
    "claim": f"""
        WITH expired AS (
            SELECT id, priority FROM crawl_tasks
            WHERE status = 'running' AND source = $2 AND locked_at < $4 AND attempts < $5
            ORDER BY priority DESC, id
            LIMIT 1
            FOR UPDATE SKIP LOCKED
        ), ready AS (
            SELECT id, priority FROM crawl_tasks
            WHERE status = 'queued' AND source = $2
            ORDER BY priority DESC, id
            LIMIT 1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE crawl_tasks
        SET status = 'running', worker = $1, locked_at = $3, attempts = attempts + 1,
            updated_at = $3
        WHERE id = (
            SELECT id FROM (SELECT * FROM expired UNION ALL SELECT * FROM ready) AS candidate
            ORDER BY priority DESC, id
            LIMIT 1)
        {shared.CLAIMED}""",
    "claimed_brand": f"{shared.CLAIMED_BRAND} $1",
    "lost": f"""{shared.STATE}
        WHERE status = 'running' AND locked_at < $1 AND attempts >= $2
        ORDER BY id
        LIMIT $3""",
    "get": f"{shared.STATE} WHERE id = $1",
    "touch": f"UPDATE crawl_tasks SET locked_at = $5, updated_at = $5 WHERE {FENCE}",
    "finish": f"""
        UPDATE crawl_tasks
        SET status = $5, shows_submitted = $6, last_error = $7, updated_at = $8
        WHERE {FENCE}""",
    "reset": f"""{shared.RESET}
            updated_at = $2
        WHERE id = $1 AND status <> 'running'""",
    "cancel": """
        UPDATE crawl_tasks SET status = 'canceled', updated_at = $2
        WHERE id = $1 AND status IN ('queued', 'running')""",
    "delete": "DELETE FROM crawl_tasks WHERE id = $1",
    "list": f"{shared.TASK_ROW} ORDER BY t.id DESC LIMIT $1 OFFSET $2",
    "list_status": f"{shared.TASK_ROW} WHERE t.status = $3 ORDER BY t.id DESC LIMIT $1 OFFSET $2",
}


class PostgresCrawlStore:
    """``crawl_tasks`` on PostgreSQL; safe for any number of backend processes."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    async def brand_exists(self, brand_id: int) -> bool:
        return bool(await self._db.value(SQL["brand_exists"], brand_id))

    async def insert(
        self, brand_id: int, source: str, priority: int, max_shows: int, now: int, season: str = ""
    ) -> int:
        return await self._db.value(
            SQL["insert"], brand_id, source, priority, max_shows, now, season
        )

    async def insert_by_prefix(
        self, like: str, source: str, priority: int, max_shows: int, limit: int, now: int
    ) -> list[int]:
        async with self._db.transaction() as conn:
            await conn.execute(SQL["batch_lock"])
            rows = await conn.rows(
                SQL["insert_by_prefix"], like, source, priority, max_shows, limit, now
            )
        return [row["id"] for row in rows]

    async def claim(
        self, worker: str, source: str, now: int, expired_before: int, max_attempts: int
    ) -> ClaimedTask | None:
        row = await self._db.row(SQL["claim"], worker, source, now, expired_before, max_attempts)
        if row is None:
            return None
        brand = await self._db.row(SQL["claimed_brand"], row["brand_id"])
        return shared.claimed_task(row, brand)

    async def lost(self, expired_before: int, max_attempts: int, limit: int) -> list[TaskState]:
        rows = await self._db.rows(SQL["lost"], expired_before, max_attempts, limit)
        return [shared.task_state(r) for r in rows]

    async def get(self, task_id: int) -> TaskState | None:
        row = await self._db.row(SQL["get"], task_id)
        return shared.task_state(row) if row else None

    async def touch(self, state: TaskState, now: int) -> bool:
        return (
            await self._db.execute(
                SQL["touch"], state.id, state.status, state.worker, state.attempts, now
            )
        ) > 0

    async def finish(
        self, state: TaskState, status: str, shows_submitted: int, error: str, now: int
    ) -> bool:
        fence = (state.id, state.status, state.worker, state.attempts)
        return (
            await self._db.execute(SQL["finish"], *fence, status, shows_submitted, error, now)
        ) > 0

    async def reset(self, task_id: int, now: int) -> bool:
        return (await self._db.execute(SQL["reset"], task_id, now)) > 0

    async def cancel(self, task_id: int, now: int) -> bool:
        return (await self._db.execute(SQL["cancel"], task_id, now)) > 0

    async def delete(self, task_id: int) -> bool:
        return (await self._db.execute(SQL["delete"], task_id)) > 0

    async def list(self, status: str | None, limit: int, offset: int) -> list[CrawlTaskRow]:
        if status is None:
            rows = await self._db.rows(SQL["list"], limit, offset)
        else:
            rows = await self._db.rows(SQL["list_status"], limit, offset, status)
        return [CrawlTaskRow(**dict(row)) for row in rows]

    async def close(self) -> None:
        """The database is the process's; its owner closes it."""
