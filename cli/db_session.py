"""Operator commands talk to the database directly: migrate, connect, run, close."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from rk.cli.common import fail
from rk.core.api.errors import RkError
from rk.core.config import Settings

if TYPE_CHECKING:
    from rk.core.api.storage import Storage
    from rk.server.platform.db.database import Database

T = TypeVar("T")


def run_with_database(settings: Settings, work: Callable[[Database], Awaitable[T]]) -> T:
    """Apply pending migrations, connect (tables bound), run ``work(db)``; RkError → exit 2.

    A database that cannot be reached is one line and exit 2 too, as for
    ``rk serve-backend``, never a traceback.
    """
    import asyncpg

    from rk.server.platform.db.engine import close, connect, redact_dsn
    from rk.server.platform.db.migrate import migrate_database

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
    except (OSError, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        fail(f"cannot open the database {redact_dsn(settings.database_url)}: {detail}")


def run_with_db(settings: Settings, work: Callable[[], Awaitable[T]]) -> T:
    """``run_with_database`` for work that uses the tables only."""
    return run_with_database(settings, lambda _db: work())


def run_with_storage(settings: Settings, work: Callable[[Storage, Database], Awaitable[T]]) -> T:
    """``run_with_database`` with the configured object store as well; a store that fails
    (unreachable, refusing) is one line and exit 2, like a database that cannot be opened."""
    from rk.core.api.lookups import open_storage
    from rk.core.api.storage import StorageContext
    from rk.server.app import backend_url

    storage = open_storage(settings.storage_url, StorageContext(backend_url=backend_url(settings)))

    async def guarded(db: Database) -> T:
        try:
            return await work(storage, db)
        except OSError as exc:
            fail(f"storage unavailable: {' '.join(str(exc).split())}")

    return run_with_database(settings, guarded)
