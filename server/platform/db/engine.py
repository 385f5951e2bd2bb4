"""Connect a process to its database: one ``Database``, with rk's tables bound to it.

``connect`` opens the ``Database`` (see ``database.py``) and points every piccolo table
at an engine running over it, so tables, queues, the crawl-task store and search share
one pool (PostgreSQL) or one writer plus readers (SQLite).
"""

from __future__ import annotations

from piccolo.table import Table

from rk.server.platform.db.database import Database, open_database
from rk.server.platform.db.dsn import dsn_scheme, redact_dsn, sqlite_path
from rk.server.platform.db.piccolo_engines import engine_for_database
from rk.server.platform.db.tables import ALL_TABLES

__all__ = [
    "bind",
    "close",
    "connect",
    "database_of",
    "dsn_scheme",
    "redact_dsn",
    "sqlite_path",
]


def bind(db: Database) -> None:
    """Make every table of rk (``tables.ALL_TABLES``) run its queries on ``db``."""
    engine = engine_for_database(db)
    for table in ALL_TABLES:
        table._meta.db = engine


def database_of(table: type[Table]) -> Database:
    """The ``Database`` a table is bound to (``bind``)."""
    db: Database | None = getattr(table._meta.db, "db", None)
    if db is None:
        raise RuntimeError(f"table {table._meta.tablename} is not bound to a Database")
    return db


async def connect(dsn: str, *, pool_size: int = 0, readers: int = 0) -> Database:
    """The ``Database`` for ``dsn``, connected and bound to the tables.

    An unreachable server or an unusable file fails here (``ConfigError`` for a DSN rk
    cannot use). ``pool_size``/``readers`` 0 take the defaults of ``open_database``.
    """
    db = await open_database(dsn, pool_size=pool_size, readers=readers)
    bind(db)
    return db


async def close(db: Database) -> None:
    """Close what ``connect`` opened."""
    await db.close()
