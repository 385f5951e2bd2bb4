"""Operator commands talk to the database directly: migrate, connect, run, close."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from rk.cli.common import fail
from rk.core.config import Settings
from rk.core.errors import RkError

if TYPE_CHECKING:
    from rk.server.db.database import Database

T = TypeVar("T")


def run_with_database(settings: Settings, work: Callable[[Database], Awaitable[T]]) -> T:
    """Apply pending migrations, connect (tables bound), run ``work(db)``; RkError → exit 2."""
    from rk.server.db.engine import close, connect
    from rk.server.db.migrate import migrate_database

    async def main() -> T:
        db = await connect(settings.database_url, pool_size=2, readers=1)
        try:
            await migrate_database(db)
            return await work(db)
        finally:
            await close(db)

    try:
        return asyncio.run(main())
    except RkError as exc:
        fail(str(exc))


def run_with_db(settings: Settings, work: Callable[[], Awaitable[T]]) -> T:
    """``run_with_database`` for work that uses the tables only."""
    return run_with_database(settings, lambda _db: work())
