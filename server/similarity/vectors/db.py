"""The vector indexes' one door to the database: the engine the tables are bound to."""

from __future__ import annotations

from typing import Any

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.server.platform.db.engine import database_of
from rk.server.platform.db.pg_database import PgDatabase
from rk.server.platform.db.tables import ImageEmbedding


def engine() -> Engine:
    """The engine of this process's tables."""
    return ImageEmbedding._meta.db


async def rows(sql: str, *args: Any) -> list[dict[str, Any]]:
    """Run one statement (``{}`` placeholders) and return its rows."""
    return [dict(row) for row in await engine().run_querystring(QueryString(sql, *args))]


def pg_database() -> PgDatabase:
    """The PostgreSQL ``Database`` of the tables, for what needs asyncpg itself (``$n``
    parameters sent once, COPY, statements outside a transaction)."""
    db = database_of(ImageEmbedding)
    if not isinstance(db, PgDatabase):
        raise TypeError("pgvector spaces live in PostgreSQL")
    return db
