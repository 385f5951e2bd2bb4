"""The PostgreSQL ``Database``: one asyncpg pool per process, transactions bound to a task."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import asyncpg

from rk.server.platform.db.database import Row, TaskTransactions
from rk.server.platform.db.dsn import asyncpg_dsn

LOST = (asyncpg.InterfaceError, asyncpg.PostgresConnectionError, OSError)
"""What a connection that an outage took raises when it is used."""
RELISTEN_FIRST_S = 0.2
RELISTEN_MAX_S = 5.0
"""Backoff between attempts to listen again after an outage took the listening connection."""


def changed(status: str) -> int:
    """asyncpg's command tag (``UPDATE 3``, ``INSERT 0 1``) → rows changed."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


async def _rollback_only(conn: asyncpg.Connection) -> None:
    """Pool release: end a transaction left open, but skip asyncpg's session reset query.

    That query (unlock advisory locks, close cursors, unlisten, reset settings) is one more
    round trip per pooled statement; rk's settings are ``SET LOCAL`` or reset by who set
    them, its advisory locks transaction-scoped, and the connection that listens is held
    until ``close``. Prepared statements stay cached.
    """
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


class PgConnection:
    """One pooled connection inside a transaction."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        return list(await self.conn.fetch(sql, *args))

    async def row(self, sql: str, *args: Any) -> Row | None:
        return await self.conn.fetchrow(sql, *args)

    async def value(self, sql: str, *args: Any) -> Any:
        return await self.conn.fetchval(sql, *args)

    async def execute(self, sql: str, *args: Any) -> int:
        return changed(await self.conn.execute(sql, *args))

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        await self.conn.executemany(sql, args)


class PgDatabase(TaskTransactions[PgConnection]):
    """``Database`` over one asyncpg pool of at most ``pool_size`` connections."""

    engine: ClassVar[str] = "postgresql"

    def __init__(self, dsn: str, pool: asyncpg.Pool) -> None:
        super().__init__(f"rk_pg_{id(self)}")
        self.dsn = dsn
        self.pool_size = pool.get_max_size()
        self._pool: asyncpg.Pool | None = pool
        self._listening: list[tuple[Any, str, Callable[..., None]]] = []
        self._resubscribing: set[asyncio.Task[None]] = set()

    @classmethod
    async def open(cls, dsn: str, pool_size: int) -> PgDatabase:
        """Start the pool (one connection now, so an unreachable server fails here)."""
        size = max(1, pool_size)
        pool = await asyncpg.create_pool(
            asyncpg_dsn(dsn), min_size=1, max_size=size, reset=_rollback_only
        )
        return cls(dsn, pool)

    @property
    def pool(self) -> asyncpg.Pool:
        """The pool; RuntimeError once closed."""
        if self._pool is None:
            raise RuntimeError("the database is closed")
        return self._pool

    def describe(self) -> str:
        """What this process holds, for the startup log line."""
        return f"pool of {self.pool_size} connections"

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgConnection]:
        ambient = self._ambient()
        if ambient is not None:
            async with ambient.conn.transaction():  # a savepoint
                yield ambient
            return
        async with self.pool.acquire() as conn, conn.transaction():
            with self._bound(PgConnection(conn)) as connection:
                yield connection

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[PgConnection]:
        """A pooled connection held in autocommit mode until the block ends."""
        async with self.pool.acquire() as conn:
            yield PgConnection(conn)

    async def rows(self, sql: str, *args: Any) -> list[Row]:
        ambient = self._ambient()
        if ambient is not None:
            return await ambient.rows(sql, *args)
        return list(await self.pool.fetch(sql, *args))

    async def row(self, sql: str, *args: Any) -> Row | None:
        ambient = self._ambient()
        if ambient is not None:
            return await ambient.row(sql, *args)
        return await self.pool.fetchrow(sql, *args)

    async def value(self, sql: str, *args: Any) -> Any:
        ambient = self._ambient()
        if ambient is not None:
            return await ambient.value(sql, *args)
        return await self.pool.fetchval(sql, *args)

    async def execute(self, sql: str, *args: Any) -> int:
        ambient = self._ambient()
        if ambient is not None:
            return await ambient.execute(sql, *args)
        return changed(await self.pool.execute(sql, *args))

    async def execute_many(self, sql: str, args: Iterable[Any]) -> None:
        ambient = self._ambient()
        if ambient is not None:
            await ambient.execute_many(sql, args)
            return
        await self.pool.executemany(sql, args)

    async def listen(self, channel: str, callback: Callable[[], None]) -> bool:
        """Call ``callback()`` on each ``NOTIFY channel``; False if the pool cannot spare it.

        The listening connection is one of the pool's, held until ``close`` (so the process
        still holds at most ``pool_size``); a pool of one keeps its connection for work. A
        connection an outage takes is replaced as soon as the server answers again, and
        ``callback()`` runs then, for what was notified while nobody listened.
        """
        if self.pool_size < 2:
            return False
        await self._subscribe(channel, callback)
        return True

    async def _subscribe(self, channel: str, callback: Callable[[], None]) -> None:
        """Hold a pooled connection that listens on ``channel``; re-subscribe when it is lost."""
        conn = await self.pool.acquire()

        def heard(*_: object) -> None:
            callback()

        def lost(*_: object) -> None:
            if self._pool is None or (conn, channel, heard) not in self._listening:
                return
            self._listening.remove((conn, channel, heard))
            task = asyncio.get_running_loop().create_task(
                self._resubscribe(conn, channel, callback)
            )
            self._resubscribing.add(task)
            task.add_done_callback(self._resubscribing.discard)

        try:
            await conn.add_listener(channel, heard)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.pool.release(conn)
            raise
        conn.add_termination_listener(lost)
        self._listening.append((conn, channel, heard))

    async def _resubscribe(self, old: Any, channel: str, callback: Callable[[], None]) -> None:
        """Listen again once the server is back (retrying with a capped backoff), then wake."""
        with contextlib.suppress(Exception):
            await self.pool.release(old)
        delay = RELISTEN_FIRST_S
        while self._pool is not None:
            try:
                await self._subscribe(channel, callback)
            except Exception:  # the server is not back yet: any failure is retried
                await asyncio.sleep(delay)
                delay = min(delay * 2, RELISTEN_MAX_S)
                continue
            callback()
            return

    async def close(self) -> None:
        """Stop listening and close the pool. A listening connection that an outage took
        (asyncpg has already released it to the pool) has no listener left to remove."""
        waiting = list(self._resubscribing)
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        for conn, channel, heard in self._listening:
            with contextlib.suppress(*LOST):
                await conn.remove_listener(channel, heard)
            with contextlib.suppress(*LOST):
                await self.pool.release(conn)
        self._listening = []
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()
