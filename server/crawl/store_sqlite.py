"""The SQLite crawl-task store: every write is one ``BEGIN IMMEDIATE`` transaction.

With one writer at a time, a claim's select-then-update cannot interleave with another
claim, in this process or another sharing the file. Only SQL here.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from rk.server.crawl import repository as shared
from rk.server.crawl.repository import ClaimedTask, CrawlTaskRow, TaskState
from rk.server.platform.db.sqlite_database import SqliteDatabase

FENCE = "id = :id AND status = :status AND worker = :worker AND attempts = :attempts"

SQL = {
    "brand_exists": "SELECT EXISTS (SELECT 1 FROM brands WHERE id = :brand_id)",
    "insert": f"""{shared.INSERT}, season)
        VALUES (:brand_id, :source, 'queued', :priority, :max_shows, '', 0, 0, 0, '', :now, :now,
                :season)
        RETURNING id""",
    "insert_by_prefix": f"""{shared.INSERT})
        SELECT b.id, :source, 'queued', :priority, :max_shows, '', 0, 0, 0, '', :now, :now
        FROM brands b
        WHERE lower(b.name) LIKE :like ESCAPE '\\'
          AND NOT EXISTS (
              SELECT 1 FROM crawl_tasks t
              WHERE t.brand_id = b.id AND t.source = :source
                AND t.status IN ('queued', 'running'))
        ORDER BY lower(b.name), b.id
        LIMIT :limit
        RETURNING id""",
    "claim": f"""
        UPDATE crawl_tasks
        SET status = 'running', worker = :worker, locked_at = :now, attempts = attempts + 1,
            updated_at = :now
        WHERE id = (
            SELECT id FROM (
                SELECT * FROM (
                    SELECT id, priority FROM crawl_tasks
                    WHERE status = 'running' AND source = :source
                      AND locked_at < :expired_before AND attempts < :max_attempts
                    ORDER BY priority DESC, id
                    LIMIT 1)
                UNION ALL
                SELECT * FROM (
                    SELECT id, priority FROM crawl_tasks
                    WHERE status = 'queued' AND source = :source
                    ORDER BY priority DESC, id
                    LIMIT 1))
            ORDER BY priority DESC, id
            LIMIT 1)
        {shared.CLAIMED}""",
    "claimed_brand": f"{shared.CLAIMED_BRAND} :brand_id",
    "lost": f"""{shared.STATE}
        WHERE status = 'running' AND locked_at < :expired_before AND attempts >= :max_attempts
        ORDER BY id
        LIMIT :limit""",
    "get": f"{shared.STATE} WHERE id = :id",
    "touch": f"UPDATE crawl_tasks SET locked_at = :now, updated_at = :now WHERE {FENCE}",
    "finish": f"""
        UPDATE crawl_tasks
        SET status = :new_status, shows_submitted = :shows_submitted, last_error = :error,
            updated_at = :now
        WHERE {FENCE}""",
    "reset": f"""{shared.RESET}
            updated_at = :now
        WHERE id = :id AND status <> 'running'""",
    "cancel": """
        UPDATE crawl_tasks SET status = 'canceled', updated_at = :now
        WHERE id = :id AND status IN ('queued', 'running')""",
    "delete": "DELETE FROM crawl_tasks WHERE id = :id",
    "list": f"{shared.TASK_ROW} ORDER BY t.id DESC LIMIT :limit OFFSET :offset",
    "list_status": f"""{shared.TASK_ROW}
        WHERE t.status = :status ORDER BY t.id DESC LIMIT :limit OFFSET :offset""",
}


def _fence(state: TaskState) -> dict[str, Any]:
    return {
        "id": state.id,
        "status": state.status,
        "worker": state.worker,
        "attempts": state.attempts,
    }


class SqliteCrawlStore:
    """``crawl_tasks`` in one SQLite file; safe across threads and processes sharing it."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def _write(self, name: str, **params: Any) -> bool:
        return await self._db.write(lambda conn: conn.execute(SQL[name], params).rowcount > 0)

    async def _rows(self, name: str, **params: Any) -> list[sqlite3.Row]:
        return await self._db.read(lambda conn: conn.execute(SQL[name], params).fetchall())

    async def brand_exists(self, brand_id: int) -> bool:
        (row,) = await self._rows("brand_exists", brand_id=brand_id)
        return bool(row[0])

    async def insert(
        self, brand_id: int, source: str, priority: int, max_shows: int, now: int, season: str = ""
    ) -> int:
        params = {
            "brand_id": brand_id,
            "source": source,
            "priority": priority,
            "max_shows": max_shows,
            "now": now,
            "season": season,
        }
        return await self._db.write(lambda conn: conn.execute(SQL["insert"], params).fetchone()[0])

    async def insert_by_prefix(
        self, like: str, source: str, priority: int, max_shows: int, limit: int, now: int
    ) -> list[int]:
        params = {
            "like": like,
            "source": source,
            "priority": priority,
            "max_shows": max_shows,
            "limit": limit,
            "now": now,
        }

        def run(conn: sqlite3.Connection) -> list[int]:
            return [row[0] for row in conn.execute(SQL["insert_by_prefix"], params).fetchall()]

        return await self._db.write(run)

    async def claim(
        self, worker: str, source: str, now: int, expired_before: int, max_attempts: int
    ) -> ClaimedTask | None:
        params = {
            "worker": worker,
            "source": source,
            "now": now,
            "expired_before": expired_before,
            "max_attempts": max_attempts,
        }

        def run(conn: sqlite3.Connection) -> ClaimedTask | None:
            row = conn.execute(SQL["claim"], params).fetchone()
            if row is None:
                return None
            brand = conn.execute(SQL["claimed_brand"], {"brand_id": row["brand_id"]}).fetchone()
            return shared.claimed_task(row, brand)

        return await self._db.write(run)

    async def lost(self, expired_before: int, max_attempts: int, limit: int) -> list[TaskState]:
        rows = await self._rows(
            "lost", expired_before=expired_before, max_attempts=max_attempts, limit=limit
        )
        return [shared.task_state(r) for r in rows]

    async def get(self, task_id: int) -> TaskState | None:
        rows = await self._rows("get", id=task_id)
        return shared.task_state(rows[0]) if rows else None

    async def touch(self, state: TaskState, now: int) -> bool:
        return await self._write("touch", now=now, **_fence(state))

    async def finish(
        self, state: TaskState, status: str, shows_submitted: int, error: str, now: int
    ) -> bool:
        return await self._write(
            "finish",
            new_status=status,
            shows_submitted=shows_submitted,
            error=error,
            now=now,
            **_fence(state),
        )

    async def reset(self, task_id: int, now: int) -> bool:
        return await self._write("reset", id=task_id, now=now)

    async def cancel(self, task_id: int, now: int) -> bool:
        return await self._write("cancel", id=task_id, now=now)

    async def delete(self, task_id: int) -> bool:
        return await self._write("delete", id=task_id)

    async def list(self, status: str | None, limit: int, offset: int) -> list[CrawlTaskRow]:
        if status is None:
            rows = await self._rows("list", limit=limit, offset=offset)
        else:
            rows = await self._rows("list_status", limit=limit, offset=offset, status=status)
        return [CrawlTaskRow(**dict(row)) for row in rows]

    async def close(self) -> None:
        """The database is the process's; its owner closes it."""
