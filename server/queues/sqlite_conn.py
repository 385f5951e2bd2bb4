"""One SQLite connection driven from asyncio through its own thread, with single-writer writes.

Several processes may share the database file: WAL mode lets readers run beside the one
writer, ``busy_timeout`` makes a writer wait for the lock instead of failing, and every
write runs inside ``BEGIN IMMEDIATE`` so it takes the write lock before it reads (a
deferred transaction that reads first and upgrades later can fail with "database is
locked" however long it waits).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rk.server.db.engine import SQLITE_BUSY_TIMEOUT_S, sqlite_path

T = TypeVar("T")


class SqliteConnection:
    """A lazily opened connection; all calls run in order on one private thread."""

    def __init__(self, dsn: str) -> None:
        self.path = str(sqlite_path(dsn))
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="rk-sqlite"
        )
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=SQLITE_BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._conn = conn
        return self._conn

    async def _on_thread(self, call: Callable[[], T]) -> T:
        if self._executor is None:
            raise RuntimeError(f"SQLite connection to {self.path} is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` outside any explicit transaction (plain reads)."""
        return await self._on_thread(lambda: fn(self._connection()))

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` inside one ``BEGIN IMMEDIATE`` transaction; roll back on error."""

        def run() -> T:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

        return await self._on_thread(run)

    async def close(self) -> None:
        """Close the connection and stop the thread (a second call does nothing)."""
        if self._executor is None:
            return

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        executor, self._executor = self._executor, None
        await asyncio.get_running_loop().run_in_executor(executor, shut)
        executor.shutdown(wait=True)
