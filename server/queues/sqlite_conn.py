"""One SQLite connection driven from asyncio through its own thread, with single-writer writes.

Several processes may share the database file: WAL mode lets readers run beside the one
writer, ``busy_timeout`` makes a writer wait for the lock instead of failing, and every
write runs inside ``BEGIN IMMEDIATE`` so it takes the write lock before it reads (a
deferred transaction that reads first and upgrades later can fail with "database is
locked" however long it waits).

Writes are group-committed: the writes that arrive while a transaction is running go
together into the next ``BEGIN IMMEDIATE`` … ``COMMIT``, each inside its own savepoint,
so a write that raises rolls back only itself, and every caller gets its answer only
once its write is committed. A busy server then pays one thread hop and one commit per
batch instead of per write (each SQLite statement also releases and re-takes the GIL,
which waits behind a busy event loop).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from rk.server.db.engine import SQLITE_BUSY_TIMEOUT_S, sqlite_path

T = TypeVar("T")
WriteFn = Callable[[sqlite3.Connection], Any]
Outcome = tuple[bool, Any]
"""``(True, result)`` or ``(False, exception)`` of one write in a batch."""


class SqliteConnection:
    """A lazily opened connection; all calls run in order on one private thread."""

    def __init__(self, dsn: str) -> None:
        self.path = str(sqlite_path(dsn))
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="rk-sqlite"
        )
        self._conn: sqlite3.Connection | None = None
        self._pending: list[tuple[WriteFn, asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

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
        """Run ``fn(conn)`` atomically in ``BEGIN IMMEDIATE``; its result, once committed.

        If ``fn`` raises, nothing it did is kept and the error is raised here.
        """
        if self._executor is None:
            raise RuntimeError(f"SQLite connection to {self.path} is closed")
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._pending.append((fn, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_batches(), name="rk-sqlite-writer")
        return await done

    async def _write_batches(self) -> None:
        """Commit what is pending, batch after batch, until nothing is left."""
        try:
            while self._pending:
                batch = [(fn, done) for fn, done in self._pending if not done.cancelled()]
                self._pending = []
                if not batch:
                    continue
                fns = [fn for fn, _ in batch]
                try:
                    outcomes = await self._on_thread(partial(self._run_batch, fns))
                except asyncio.CancelledError:
                    for _, done in batch:
                        done.cancel()
                    raise
                except BaseException as exc:  # BEGIN/COMMIT failed: nothing was kept
                    outcomes = [(False, exc)] * len(batch)
                for (_, done), (ok, value) in zip(batch, outcomes, strict=True):
                    if done.done():
                        continue
                    if ok:
                        done.set_result(value)
                    else:
                        done.set_exception(value)
        except asyncio.CancelledError:
            for _, done in self._pending:
                done.cancel()
            self._pending = []
            raise
        finally:
            self._writer = None

    def _run_batch(self, fns: list[WriteFn]) -> list[Outcome]:
        """On the thread: one transaction, a savepoint per write when there are several."""
        conn = self._connection()
        savepoints = len(fns) > 1
        outcomes: list[Outcome] = []
        conn.execute("BEGIN IMMEDIATE")
        try:
            for fn in fns:
                if savepoints:
                    conn.execute("SAVEPOINT rk_write")
                try:
                    outcomes.append((True, fn(conn)))
                except Exception as exc:
                    if not savepoints:
                        raise
                    conn.execute("ROLLBACK TO rk_write")
                    outcomes.append((False, exc))
                if savepoints:
                    conn.execute("RELEASE rk_write")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return outcomes

    async def close(self) -> None:
        """Finish pending writes, close the connection, stop the thread (twice does nothing)."""
        if self._executor is None:
            return
        if self._writer is not None:
            await asyncio.wait([self._writer])

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        executor, self._executor = self._executor, None
        await asyncio.get_running_loop().run_in_executor(executor, shut)
        executor.shutdown(wait=True)
