"""The change counters of the public site (migration 0021): what a cached page is valid for.

Triggers move ``content`` on any change a public page could show; ``neighbours`` moves
once per transaction that changes stored neighbour lists, by that transaction itself
(``bump_neighbours``, migration 0043); reading both is one indexed query.

Under load many requests want the counters at once; ``CounterReads`` lets them share
reads without ever seeing an old value: a request joins the *next* read to start, never
one already running, so the value it gets was read after it arrived. While requests keep
coming the reads run back to back on one held connection (``Database.reading``): one
round trip each, no pool checkout and release per read.
"""

from __future__ import annotations

import asyncio
import time

from msgspec import Struct

from rk.server.platform.db.database import Connection
from rk.server.platform.db.engine import database_of
from rk.server.platform.db.tables import PublicChange

SQL = "SELECT name, version, changed_at FROM public_changes"
BUMP_NEIGHBOURS = (
    "UPDATE public_changes SET version = version + 1, changed_at = {} WHERE name = 'neighbours'"
)


class Changes(Struct, frozen=True, kw_only=True):
    """The counters and when ``content`` last moved (unix seconds, 0 = never)."""

    content: int
    neighbours: int
    changed_at: int


async def read_changes(conn: Connection | None = None) -> Changes:
    """The counters as they are now (on ``conn``, else on the tables' database)."""
    source = conn if conn is not None else database_of(PublicChange)
    found = {str(row["name"]): row for row in await source.rows(SQL)}
    content, neighbours = found.get("content"), found.get("neighbours")
    return Changes(
        content=int(content["version"]) if content else 0,
        neighbours=int(neighbours["version"]) if neighbours else 0,
        changed_at=int(content["changed_at"]) if content else 0,
    )


async def bump_neighbours() -> None:
    """Inside the transaction that changed neighbour lists: move ``neighbours`` once.

    Once per transaction, not per row: a neighbours batch rewrites tens of thousands of
    ranks, and pages only need to know that some list changed when it commits.
    """
    db = database_of(PublicChange)
    if not db.in_transaction():
        raise RuntimeError("bump_neighbours must run in the transaction that changed the lists")
    await db.execute(BUMP_NEIGHBOURS.format(int(time.time())))


class CounterReads:
    """Shared reads of the counters: one in flight, the next one gathering its waiters."""

    def __init__(self) -> None:
        self._next: asyncio.Future[Changes] | None = None
        self._reader: asyncio.Task[None] | None = None

    async def read(self) -> Changes:
        """The counters, read after this call began (shared with concurrent callers)."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        waiting = self._next
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._run())
        return await asyncio.shield(waiting)

    async def _run(self) -> None:
        while self._next is not None:  # more waiters may come while a connection goes back
            batch: asyncio.Future[Changes] | None = None
            try:
                async with database_of(PublicChange).reading() as conn:
                    while self._next is not None:
                        batch, self._next = self._next, None
                        batch.set_result(await read_changes(conn))
                        batch = None
            except Exception as exc:  # the batch being read, or the one waiting for a connection
                if batch is None and self._next is not None:
                    batch, self._next = self._next, None
                if batch is not None:
                    batch.set_exception(exc)
                    batch.exception()  # retrieved: no warning when nobody waits any more
