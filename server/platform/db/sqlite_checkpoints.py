"""WAL checkpoints off the writer's commit path, for the SQLite ``Database``.

SQLite copies committed WAL frames back into the database file (a checkpoint) inside the
``COMMIT`` that takes the WAL past ``wal_autocheckpoint`` pages (1,000 by default): that
commit waits for the copy and its fsync. A neighbours batch at 100k vectors spent 0.19 s
of its 0.75 s there, and every group-committed write behind it waited too. rk's writer
leaves the WAL to a checkpointer instead, with its own connection and thread: after a
commit, a ``PASSIVE`` checkpoint (which never blocks the writer or a reader) runs at most
once every ``EVERY_S`` while writes go on. The writer's own automatic checkpoint stays as
a backstop at ``BACKSTOP_PAGES``, for bursts the checkpointer does not keep up with.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)

EVERY_S = 0.5
"""Least seconds between two background checkpoints while commits keep coming."""
BACKSTOP_PAGES = 16_384
"""The writer's ``wal_autocheckpoint``: 64 MiB of WAL before a commit checkpoints itself."""


class Checkpointer:
    """Runs ``PASSIVE`` checkpoints of one database file after commits, one at a time."""

    def __init__(self, path: Path, busy_timeout_s: float) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self.runs = 0
        """Checkpoints run so far."""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rk-sqlite-checkpoint")
        self._conn: sqlite3.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._due = False
        self._last = -math.inf
        self._closed = False

    def committed(self) -> None:
        """A write transaction committed: its frames are checkpointed soon."""
        self._due = True
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="rk-sqlite-checkpoint"
            )

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._due:
                wait = self._last + EVERY_S - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._due = False
                await asyncio.shield(loop.run_in_executor(self._pool, self._checkpoint))
                self._last = loop.time()
        finally:
            self._task = None

    def _checkpoint(self) -> None:
        """On the checkpointer's thread: copy what the WAL holds (a failure is logged; the
        next commit tries again, and the writer's backstop still bounds the WAL)."""
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(
                    self.path,
                    timeout=self.busy_timeout_s,
                    isolation_level=None,
                    check_same_thread=False,
                )
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.runs += 1
        except sqlite3.Error as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)  # another process's turn
            level = logging.DEBUG if busy else logging.WARNING
            log.log(level, "SQLite checkpoint of %s failed: %s", self.path, exc)

    async def close(self) -> None:
        """Stop: a waiting checkpoint is dropped, a running one finishes, the connection
        closes (the last connection to close checkpoints what is left)."""
        if self._closed:
            return
        self._closed = True
        task = self._task
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(self._pool, shut)
        self._pool.shutdown(wait=True)
