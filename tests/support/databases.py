"""A test's own database, migrated and bound to rk's tables for as long as a test needs it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate


@asynccontextmanager
async def migrated(dsn: str) -> AsyncIterator[Database]:
    """``dsn`` with every migration applied and rk's tables bound to it; closed on exit."""
    await migrate(dsn)
    database = await connect(dsn)
    try:
        yield database
    finally:
        await close(database)
