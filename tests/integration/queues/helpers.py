"""Helpers for the queue suites: a hand-driven clock, raw row reads on either engine, and
claims made at once."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from rk.core.api.queues import Job
from rk.server.platform.db.dsn import sqlite_path
from rk.server.platform.jobs.engine import JobQueue

Rows = Callable[[str], Awaitable[list[dict[str, Any]]]]
MakeQueue = Callable[..., Awaitable[JobQueue]]


class Clock:
    """A clock the test moves by hand: ``clock()`` is now, ``clock.advance(s)`` moves it."""

    def __init__(self, now: int = 1_700_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: int) -> int:
        """Move the clock forward and return the new now."""
        self.now += seconds
        return self.now


async def fetch_rows(dsn: str, sql: str) -> list[dict[str, Any]]:
    """Run a parameterless statement on either engine, rows as dicts (outside rk's code)."""
    if dsn.startswith("sqlite"):
        conn = sqlite3.connect(sqlite_path(dsn))
        conn.row_factory = sqlite3.Row
        try:
            found = [dict(r) for r in conn.execute(sql).fetchall()]
            conn.commit()
            return found
        finally:
            conn.close()
    pg = await asyncpg.connect(dsn)
    try:
        return [dict(r) for r in await pg.fetch(sql)]
    finally:
        await pg.close()


async def claim_at_once(queue: JobQueue, workers: int) -> list[Job]:
    """``workers`` claims at once on one queue (one batch); the jobs they got."""
    got = await asyncio.gather(*(queue.claim() for _ in range(workers)))
    return [job for job in got if job is not None]
