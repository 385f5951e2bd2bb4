"""One database access path per process: a ``Database`` shared by tables, queues and search.

On PostgreSQL it is one asyncpg pool (``pg_database.py``); on SQLite one writer connection
whose single-statement writes are group-committed, plus read-only connections in WAL mode
(``sqlite_database.py``). piccolo's tables run over the same connections through the
engines of ``piccolo_engines.py``.

SQL is written for the engine (``$1`` on PostgreSQL, ``?`` or one ``{name: value}`` mapping
of ``:name`` parameters on SQLite). Inside ``async with db.transaction()`` every call the
same task makes on ``db`` — its own, piccolo's, a queue's — runs in that transaction, so a
job's effects and its completion commit (or roll back) together. A nested ``transaction()``
is a savepoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from rk.server.platform.db.dsn import engine_of

DEFAULT_SQLITE_READERS = 4
"""Read-only SQLite connections when the setting is 0."""
POOL_HEADROOM = 8
"""Connections beyond one per ingest worker: HTTP requests, embedding and neighbour work."""

Row = Any
"""A result row (``asyncpg.Record`` or ``sqlite3.Row``): indexable by column name or position."""
C = TypeVar("C")


def default_pool_size(workers: int) -> int:
    """The PostgreSQL pool size when ``server.db_pool_size`` is 0: ``server.workers + 8``."""
    return max(0, workers) + POOL_HEADROOM


class Connection(Protocol):
    """What a transaction hands out: statements on its one connection."""

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        """Every row the statement returns."""
        ...

    async def row(self, sql: str, *args: Any) -> Row | None:
        """The first row, or None."""
        ...

    async def value(self, sql: str, *args: Any) -> Any:
        """The first column of the first row, or None."""
        ...

    async def execute(self, sql: str, *args: Any) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        """Run a statement once per parameter set."""
        ...


class Database(Connection, Protocol):
    """The process's database; outside a transaction each call is its own (auto-committed)."""

    engine: ClassVar[str]
    dsn: str

    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction for this task (a savepoint inside one); commits unless it raises."""
        ...

    def in_transaction(self) -> bool:
        """Whether this task is inside ``transaction()``."""
        ...

    def reading(self) -> AbstractAsyncContextManager[Connection]:
        """One connection for a run of single-statement reads outside any transaction.

        Each statement sees every commit made before it starts. On PostgreSQL the
        connection is held for the whole run, so a loop of reads costs one round trip
        each and no pool checkout and release; on SQLite reads go to the readers.
        """
        ...

    def describe(self) -> str:
        """The connections held, for logs (``pool of 9 connections``)."""
        ...

    async def close(self) -> None:
        """Close every connection (twice does nothing)."""
        ...


class TaskTransactions(Generic[C]):
    """The task-bound half of a ``Database``: which transaction, if any, this task is in.

    The connection of an open transaction sits in a ContextVar with the task that opened it;
    a task started inside the block inherits the variable but not the transaction (its
    statements must not interleave with the opener's), so only the opener sees it.
    """

    def __init__(self, name: str) -> None:
        self._current: ContextVar[tuple[asyncio.Task[Any] | None, C] | None] = ContextVar(
            name, default=None
        )

    def _ambient(self) -> C | None:
        """The connection of the transaction this task opened, or None."""
        current = self._current.get()
        if current is None or current[0] is not asyncio.current_task():
            return None
        return current[1]

    def in_transaction(self) -> bool:
        """Whether this task is inside ``transaction()``."""
        return self._ambient() is not None

    @contextmanager
    def _bound(self, connection: C) -> Iterator[C]:
        """Make ``connection`` this task's transaction until the block ends."""
        token = self._current.set((asyncio.current_task(), connection))
        try:
            yield connection
        finally:
            self._current.reset(token)


async def open_database(dsn: str, *, pool_size: int = 0, readers: int = 0) -> Database:
    """The database for ``dsn``, connected: an unreachable server or bad file fails here.

    ``pool_size`` (PostgreSQL) 0 means ``default_pool_size(1)``; ``readers`` (SQLite) 0
    means ``DEFAULT_SQLITE_READERS``.
    """
    if engine_of(dsn) == "sqlite":
        from rk.server.platform.db.sqlite_database import SqliteDatabase

        return await SqliteDatabase.open(dsn, readers or DEFAULT_SQLITE_READERS)
    from rk.server.platform.db.pg_database import PgDatabase

    return await PgDatabase.open(dsn, pool_size or default_pool_size(1))
