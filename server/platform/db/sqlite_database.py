"""The SQLite ``Database``: one writer connection, group-committed, and WAL-mode readers.

Several processes may share the file: WAL lets readers run beside the one writer,
``busy_timeout`` makes a writer wait for another process's lock instead of failing, and
every write transaction is ``BEGIN IMMEDIATE``, so it takes the write lock before it reads
(a deferred transaction that reads first and upgrades later can fail with "database is
locked" however long it waits).

In this process the writer connection is the only one that writes. A ``transaction()``
holds it for its whole length; single statements and ``write(fn)`` calls made outside one
are group-committed: those that arrive while the writer is busy go together into the next
``BEGIN IMMEDIATE`` … ``COMMIT``, each in its own savepoint, so one that raises rolls back
only itself and every caller gets its answer once its write is committed. Reads outside a
transaction go to read-only connections and see committed data only. Committed frames
reach the database file through a background checkpointer (``sqlite_checkpoints``), not
inside the writer's ``COMMIT``.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from itertools import count
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rk.core.api.errors import ConfigError
from rk.server.platform.db.batches import Batches, Waiting
from rk.server.platform.db.database import Row, TaskTransactions
from rk.server.platform.db.dsn import sqlite_path
from rk.server.platform.db.sqlite_checkpoints import BACKSTOP_PAGES, Checkpointer

T = TypeVar("T")
WriteFn = Callable[[sqlite3.Connection], Any]
Outcome = tuple[bool, Any]
"""``(True, result)`` or ``(False, exception)`` of one write in a batch."""

BUSY_TIMEOUT_S = 30.0
"""How long a connection waits for another process's write lock before failing."""
MIN_SQLITE = (3, 35)
"""rk's queries use ``RETURNING`` (SQLite 3.35+)."""
READ_WORDS = ("SELECT", "VALUES", "EXPLAIN")
WRITER_CACHE_KIB = 64 * 1024
"""The writer's page cache (SQLite's default is 2 MiB): a transaction that changes pages
all over large indexes (a neighbours batch moving tens of thousands of ranks) otherwise
spills and re-reads them; measured, the batch's writes took 35% less CPU with it."""


def params(args: tuple[Any, ...]) -> Any:
    """Positional ``?`` parameters, or one mapping for ``:name`` parameters."""
    if len(args) == 1 and isinstance(args[0], Mapping):
        return args[0]
    return args


def is_read(sql: str) -> bool:
    """Whether a statement only reads (it may then run on a reader connection)."""
    return sql.lstrip().split(None, 1)[0].upper() in READ_WORDS if sql.strip() else False


def connect_file(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """A connection in autocommit mode with rk's pragmas; rows as ``sqlite3.Row``.

    No ``detect_types``: rk stores times as INTEGER epochs and declares no DATE, TIMESTAMP
    or other converted type, and the converters piccolo registers (INTEGER among them)
    would only call ``int()`` in Python on every integer of every row.
    """
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    if read_only:
        conn.execute("PRAGMA query_only = ON")
    else:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
    return conn


class FirstRowReads(ABC):
    """``row`` and ``value`` as the first row and column of ``rows``."""

    @abstractmethod
    async def rows(self, sql: str, *args: Any) -> list[Row]:
        """Every row the statement returns."""

    async def row(self, sql: str, *args: Any) -> Row | None:
        found = await self.rows(sql, *args)
        return found[0] if found else None

    async def value(self, sql: str, *args: Any) -> Any:
        found = await self.row(sql, *args)
        return None if found is None else found[0]


class SqliteConnection(FirstRowReads):
    """The writer connection inside a transaction; every call runs on the writer thread."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        return await self._db.on_writer(lambda c: c.execute(sql, params(args)).fetchall())

    async def row(self, sql: str, *args: Any) -> Row | None:
        return await self._db.on_writer(lambda c: c.execute(sql, params(args)).fetchone())

    async def execute(self, sql: str, *args: Any) -> int:
        return await self._db.on_writer(lambda c: c.execute(sql, params(args)).rowcount)

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        sets = [params(tuple(a)) if not isinstance(a, Mapping) else a for a in args]
        await self._db.on_writer(lambda c: c.executemany(sql, sets))


class SqliteReader(FirstRowReads):
    """Statements on the read-only connections, outside any transaction (``reading()``)."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        return await self._db.on_reader(lambda c: c.execute(sql, params(args)).fetchall())

    async def execute(self, sql: str, *args: Any) -> int:
        raise sqlite3.OperationalError("reading() connections are read-only")

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        raise sqlite3.OperationalError("reading() connections are read-only")


class SqliteDatabase(FirstRowReads, TaskTransactions[SqliteConnection]):
    """``Database`` over one SQLite file: a writer and ``readers`` read-only connections."""

    engine: ClassVar[str] = "sqlite"

    def __init__(self, dsn: str, readers: int) -> None:
        super().__init__(f"rk_sqlite_{id(self)}")
        self.dsn = dsn
        self.path = sqlite_path(dsn)
        self.readers = max(1, readers)
        self._writer_pool: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="rk-sqlite-writer"
        )
        self._reader_pool = ThreadPoolExecutor(
            max_workers=self.readers, thread_name_prefix="rk-sqlite-reader"
        )
        self._writer: sqlite3.Connection | None = None
        self._reader_local = threading.local()
        self._reader_conns: list[sqlite3.Connection] = []
        self._lock = asyncio.Lock()
        self._writes: Batches[WriteFn, Any] = Batches(
            self._commit_batch, name="rk-sqlite-batches", gate=self._lock
        )
        self._savepoints = count(1)
        self.checkpoints = Checkpointer(self.path, BUSY_TIMEOUT_S)

    @classmethod
    async def open(cls, dsn: str, readers: int) -> SqliteDatabase:
        """Open the file (created when missing) in WAL mode; ``ConfigError`` if it cannot be."""
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise ConfigError(f"SQLite {sqlite3.sqlite_version} is too old; rk needs 3.35 or newer")
        db = cls(dsn, readers)
        try:
            db.path.parent.mkdir(parents=True, exist_ok=True)
            await db.on_writer(lambda c: None)
        except (OSError, sqlite3.Error) as exc:
            await db.close()
            raise ConfigError(f"cannot open SQLite database {db.path}: {exc}") from None
        return db

    def describe(self) -> str:
        """What this process holds, for the startup log line."""
        return f"1 writer + {self.readers} readers, WAL"

    def _writer_conn(self) -> sqlite3.Connection:
        if self._writer is None:
            self._writer = connect_file(self.path, read_only=False)
        return self._writer

    def _reader_conn(self) -> sqlite3.Connection:
        conn = getattr(self._reader_local, "conn", None)
        if conn is None:
            conn = connect_file(self.path, read_only=True)
            self._reader_local.conn = conn
            self._reader_conns.append(conn)
        return conn

    async def on_writer(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(writer)`` on the writer thread (callers hold the writer or need no lock)."""
        return await self._on(self._writer_pool, self._writer_conn, fn)

    async def _on(
        self,
        pool: ThreadPoolExecutor | None,
        conn: Callable[[], sqlite3.Connection],
        fn: Callable[[sqlite3.Connection], T],
    ) -> T:
        """Run ``fn(conn())`` on a thread of ``pool``, refused once the database is closed."""
        if self._writer_pool is None or pool is None:
            raise RuntimeError(f"SQLite database {self.path} is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, lambda: fn(conn()))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteConnection]:
        ambient = self._ambient()
        if ambient is not None:
            async with self._savepoint():
                yield ambient
            return
        async with self._lock:
            await self.on_writer(lambda c: c.execute("BEGIN IMMEDIATE"))
            with self._bound(SqliteConnection(self)) as connection:
                try:
                    yield connection
                except BaseException:
                    await asyncio.shield(self.on_writer(_rollback))
                    raise
                else:
                    try:
                        await asyncio.shield(self.on_writer(lambda c: c.execute("COMMIT")))
                    except BaseException:
                        await asyncio.shield(self.on_writer(_rollback))
                        raise
                    self.checkpoints.committed()

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[None]:
        name = f"rk_sp{next(self._savepoints)}"
        await self.on_writer(lambda c: c.execute(f"SAVEPOINT {name}"))
        try:
            yield
        except BaseException:
            await asyncio.shield(
                self.on_writer(
                    lambda c: (c.execute(f"ROLLBACK TO {name}"), c.execute(f"RELEASE {name}"))
                )
            )
            raise
        await self.on_writer(lambda c: c.execute(f"RELEASE {name}"))

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` on a reader (committed data), or in this task's transaction."""
        if self._ambient() is not None:
            return await self.on_writer(fn)
        return await self.on_reader(fn)

    async def on_reader(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` on a read-only connection: committed data, whatever the task."""
        return await self._on(self._reader_pool, self._reader_conn, fn)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[SqliteReader]:
        """The read-only connections, each statement on whichever is free (WAL)."""
        yield SqliteReader(self)

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` atomically on the writer; its result once committed.

        Inside this task's transaction it runs there (in a savepoint); otherwise it is
        group-committed with the writes that arrive meanwhile. If ``fn`` raises, nothing
        it did is kept and the error is raised here.
        """
        if self._ambient() is not None:
            async with self._savepoint():
                return await self.on_writer(fn)
        if self._writer_pool is None:
            raise RuntimeError(f"SQLite database {self.path} is closed")
        return await self._writes.ask(fn)

    async def _commit_batch(self, waiting: list[Waiting[WriteFn, Any]]) -> None:
        """Run the writes still wanted in one transaction (under the lock), then answer each."""
        batch = [(fn, done) for fn, done in waiting if not done.cancelled()]
        if not batch:
            return
        try:
            outcomes = await self.on_writer(partial(_run_batch, [fn for fn, _ in batch]))
        except asyncio.CancelledError:
            for _, done in batch:
                done.cancel()
            raise
        except BaseException as exc:  # BEGIN/COMMIT failed: nothing was kept
            outcomes = [(False, exc)] * len(batch)
        else:
            self.checkpoints.committed()
        for (_, done), (ok, value) in zip(batch, outcomes, strict=True):
            if done.done():
                continue
            if ok:
                done.set_result(value)
            else:
                done.set_exception(value)

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        ambient = self._ambient()
        if ambient is not None:
            return await ambient.rows(sql, *args)
        if is_read(sql):
            return await self.read(lambda c: c.execute(sql, params(args)).fetchall())
        return await self.write(lambda c: c.execute(sql, params(args)).fetchall())

    async def execute(self, sql: str, *args: Any) -> int:
        return await self.write(lambda c: c.execute(sql, params(args)).rowcount)

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        sets = [a if isinstance(a, Mapping) else tuple(a) for a in args]
        await self.write(lambda c: c.executemany(sql, sets))

    async def close(self) -> None:
        if self._writer_pool is None:
            return
        await self._writes.settled()
        await self.checkpoints.close()
        writer_pool, self._writer_pool = self._writer_pool, None

        def shut_writer() -> None:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(writer_pool, shut_writer)
        writer_pool.shutdown(wait=True)
        await loop.run_in_executor(None, partial(self._reader_pool.shutdown, wait=True))
        for conn in self._reader_conns:
            conn.close()
        self._reader_conns = []


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _run_batch(fns: list[WriteFn], conn: sqlite3.Connection) -> list[Outcome]:
    """On the writer thread: one transaction, a savepoint per write when there are several."""
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
        _rollback(conn)
        raise
    return outcomes
