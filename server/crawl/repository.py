"""The crawl-task repository interface: atomic SQL operations on ``crawl_tasks``, one per engine.

The policy (lease, attempt limit, what a result does) lives in
``rk.server.crawl.tasks``; stores only run SQL. Every change to a claimed task is
fenced by the claim: the store updates the row only while it still has the status, worker
and attempt count the caller read, so a stale worker or a racing admin changes nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from msgspec import Struct

from rk.server.platform.db.database import Database

ACTIVE = ("queued", "running")

TASK_ROW = """
    SELECT t.id, t.brand_id, COALESCE(b.uid, '') AS brand_uid, COALESCE(b.name, '') AS brand_name,
           t.source, t.status, t.priority, t.max_shows, t.worker, t.locked_at, t.attempts,
           t.shows_submitted, t.last_error, t.created_at, t.updated_at, t.season
    FROM crawl_tasks t LEFT JOIN brands b ON b.id = t.brand_id"""
"""The list query's rows: every task column with its brand's uid and name (same SQL on both
engines; each store appends its own filter, order and placeholders)."""


INSERT = """
    INSERT INTO crawl_tasks (brand_id, source, status, priority, max_shows, worker, locked_at,
                             attempts, shows_submitted, last_error, created_at, updated_at"""
"""The head of both engines' task inserts, up to the columns they differ in (one adds season)."""

CLAIMED = "RETURNING id, brand_id, source, max_shows, attempts, season"
"""The tail of both engines' claims: the task columns ``claimed_task`` reads."""

CLAIMED_BRAND = "SELECT uid, name, slugs FROM brands WHERE id ="
"""The brand columns ``claimed_task`` reads; each engine binds the brand id its own way."""

STATE = "SELECT id, status, worker, attempts FROM crawl_tasks"
"""The fence fields ``task_state`` reads; each engine appends its own filter."""

RESET = """
    UPDATE crawl_tasks
    SET status = 'queued', attempts = 0, worker = '', locked_at = 0, shows_submitted = 0,"""
"""The head of an admin's retry; each engine binds ``updated_at`` and the id its own way."""


class TaskState(Struct, frozen=True, kw_only=True):
    """What a fenced update checks: who holds the task, in which status, on which attempt."""

    id: int
    status: str
    worker: str
    attempts: int


class ClaimedTask(Struct, frozen=True, kw_only=True):
    """A task just claimed, with its brand (``brand_name`` None when the brand row is gone)."""

    id: int
    brand_id: int
    source: str
    max_shows: int
    attempts: int
    brand_uid: str
    brand_name: str | None
    brand_slugs: str
    season: str = ""


class CrawlTaskRow(Struct, frozen=True, kw_only=True):
    """One task as the admin pages list it."""

    id: int
    brand_id: int
    brand_uid: str
    brand_name: str
    source: str
    status: str
    priority: int
    max_shows: int
    worker: str
    locked_at: int
    attempts: int
    shows_submitted: int
    last_error: str
    created_at: int
    updated_at: int
    season: str = ""


def task_state(row: Any) -> TaskState:
    """A task's fence fields from a row of either engine (``id, status, worker, attempts``)."""
    return TaskState(
        id=row["id"], status=row["status"], worker=row["worker"], attempts=row["attempts"]
    )


def claimed_task(row: Any, brand: Any) -> ClaimedTask:
    """A claim's answer from its ``RETURNING`` row and its brand's row (None when gone)."""
    return ClaimedTask(
        id=row["id"],
        brand_id=row["brand_id"],
        source=row["source"],
        max_shows=row["max_shows"],
        attempts=row["attempts"],
        brand_uid=brand["uid"] if brand else "",
        brand_name=brand["name"] if brand else None,
        brand_slugs=brand["slugs"] if brand else "{}",
        season=row["season"],
    )


class CrawlStore(Protocol):
    """SQL on ``crawl_tasks`` for one database engine."""

    async def brand_exists(self, brand_id: int) -> bool:
        """Whether a brand row with this id exists."""
        ...

    async def insert(
        self, brand_id: int, source: str, priority: int, max_shows: int, now: int, season: str = ""
    ) -> int:
        """Add a queued task (of one season of the brand when ``season``); its id."""
        ...

    async def insert_by_prefix(
        self, like: str, source: str, priority: int, max_shows: int, limit: int, now: int
    ) -> list[int]:
        """Queue brands whose lowercased name is LIKE ``like`` (escape ``\\``), by name.

        Brands with a queued or running task of ``source`` are skipped; at most ``limit``
        tasks are added, atomically with that check. Returns the new task ids.
        """
        ...

    async def claim(
        self, worker: str, source: str, now: int, expired_before: int, max_attempts: int
    ) -> ClaimedTask | None:
        """Atomically take the best claimable task of ``source``: priority desc, then id.

        Claimable: queued, or running with ``locked_at < expired_before`` and
        ``attempts < max_attempts``. Sets running, worker, ``locked_at = now``, attempts + 1.
        """
        ...

    async def lost(self, expired_before: int, max_attempts: int, limit: int) -> list[TaskState]:
        """Running tasks whose lease ran out and that have no attempt left."""
        ...

    async def get(self, task_id: int) -> TaskState | None:
        """The task's fence fields, or None when there is no such task."""
        ...

    async def touch(self, state: TaskState, now: int) -> bool:
        """Renew the lease (``locked_at = now``) of a task still as ``state`` says."""
        ...

    async def finish(
        self, state: TaskState, status: str, shows_submitted: int, error: str, now: int
    ) -> bool:
        """Record a result on a task still as ``state`` says: new status, count, error."""
        ...

    async def reset(self, task_id: int, now: int) -> bool:
        """Queue a task that is not running again with attempts 0 (an admin's retry)."""
        ...

    async def cancel(self, task_id: int, now: int) -> bool:
        """Cancel a queued or running task."""
        ...

    async def delete(self, task_id: int) -> bool:
        """Remove the task row."""
        ...

    async def list(self, status: str | None, limit: int, offset: int) -> list[CrawlTaskRow]:
        """Tasks, newest first, optionally of one status."""
        ...

    async def close(self) -> None:
        """Release what the store holds itself (not the shared database)."""
        ...


def crawl_store_for(db: Database) -> CrawlStore:
    """The crawl store for the process's database, chosen by its engine."""
    if db.engine == "sqlite":
        from rk.server.crawl.store_sqlite import SqliteCrawlStore
        from rk.server.platform.db.sqlite_database import SqliteDatabase

        assert isinstance(db, SqliteDatabase)
        return SqliteCrawlStore(db)
    from rk.server.crawl.store_postgres import PostgresCrawlStore
    from rk.server.platform.db.pg_database import PgDatabase

    assert isinstance(db, PgDatabase)
    return PostgresCrawlStore(db)
