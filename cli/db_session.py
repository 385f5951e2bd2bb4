"""Operator commands talk to the database directly: migrate, connect, run, close."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rk.cli.common import fail
from rk.core.config import Settings
from rk.core.errors import RkError

T = TypeVar("T")


def run_with_db(settings: Settings, work: Callable[[], Awaitable[T]]) -> T:
    """Apply pending migrations, bind the tables, run ``work()``; RkError → exit 2.

    A database that cannot be reached is one line and exit 2 too, as for
    ``rk serve-backend``, never a traceback.
    """
    import asyncpg

    from rk.server.db.engine import close, connect, redact_dsn
    from rk.server.db.migrate import migrate

    async def main() -> T:
        await migrate(settings.database_url)
        engine = await connect(settings.database_url)
        try:
            return await work()
        finally:
            await close(engine)

    try:
        return asyncio.run(main())
    except RkError as exc:
        fail(str(exc))
    except (OSError, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        fail(f"cannot open the database {redact_dsn(settings.database_url)}: {detail}")
