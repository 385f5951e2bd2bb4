"""piccolo engines that run every table query over the process's ``Database``.

piccolo's own engines open their own connections (a pool on PostgreSQL, a new aiosqlite
connection per query on SQLite); these run the compiled SQL through the ``Database``
instead, so tables share its pool or its single SQLite writer, and a query made inside
``db.transaction()`` (or ``engine.transaction()``) is part of that transaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from piccolo.engine.base import Engine
from piccolo.engine.postgres import PostgresEngine
from piccolo.engine.sqlite import SQLiteEngine
from piccolo.querystring import QueryString

from rk.server.platform.db.database import Database


@asynccontextmanager
async def _transaction(db: Database) -> AsyncIterator[Any]:
    async with db.transaction() as connection:
        yield connection


async def _run(db: Database, sql: str, args: list[Any]) -> list[dict[str, Any]]:
    """The statement's rows as dicts, column names read once per statement (not per row).

    A result with a repeated column name keeps ``dict(row)``'s answer (the first column).
    """
    found = await db.rows(sql, *args)
    if not found:
        return []
    names = tuple(found[0].keys())
    if len(set(names)) < len(names):
        return [dict(row) for row in found]
    return [dict(zip(names, row, strict=True)) for row in found]


class _OverDatabase:
    """What both engines do alike: run compiled SQL and transactions on the ``Database``."""

    db: Database
    engine_type: str

    async def check_version(self) -> None:
        """No probe: the ``Database`` checked its server when it opened."""

    async def run_querystring(self, querystring: QueryString, in_pool: bool = True) -> Any:
        sql, args = querystring.compile_string(engine_type=self.engine_type)
        return await _run(self.db, sql, args)

    async def run_ddl(self, ddl: str, in_pool: bool = True) -> Any:
        return await _run(self.db, ddl, [])

    def transaction(self, *args: Any, **kwargs: Any) -> Any:
        """A ``Database`` transaction (on SQLite ``BEGIN IMMEDIATE`` on the writer), or a
        savepoint inside one; piccolo's options are moot."""
        return _transaction(self.db)


class DatabasePostgresEngine(_OverDatabase, PostgresEngine):
    """piccolo's PostgreSQL dialect over a ``PgDatabase``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        super().__init__(config={"dsn": db.dsn})

    async def start_connection_pool(self, **kwargs: Any) -> None:
        """The ``Database`` owns the pool."""

    async def close_connection_pool(self) -> None:
        """The ``Database`` owns the pool."""


class DatabaseSQLiteEngine(_OverDatabase, SQLiteEngine):
    """piccolo's SQLite dialect over a ``SqliteDatabase``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        super().__init__(path=str(getattr(db, "path", "")))


def engine_for_database(db: Database) -> Engine:
    """The piccolo engine that runs over ``db``."""
    if db.engine == "sqlite":
        return DatabaseSQLiteEngine(db)
    return DatabasePostgresEngine(db)
