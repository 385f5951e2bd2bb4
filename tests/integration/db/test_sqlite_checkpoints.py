"""SQLite's WAL reaches the database file through the background checkpointer: a commit
does not copy its frames itself (below the backstop), yet committed pages land in the file
soon after, from group-committed writes and from transactions alike, and close() leaves
nothing running."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from rk.server.platform.db.sqlite_checkpoints import BACKSTOP_PAGES
from rk.server.platform.db.sqlite_database import SqliteDatabase

BLOB = 64 * 1024
ROWS = 160
"""10 MiB of rows: past SQLite's default automatic checkpoint (1,000 pages), below rk's."""


def size_of(path: Path | str) -> int:
    return os.stat(path).st_size


async def file_reaches(path: Path, size: int) -> int:
    """The database file's size once it is at least ``size`` (waits up to 20 s)."""
    for _ in range(200):
        if size_of(path) >= size:
            break
        await asyncio.sleep(0.1)
    return size_of(path)


async def test_committed_pages_reach_the_file_through_the_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    db = await SqliteDatabase.open(f"sqlite:///{path}", 1)
    try:
        autocheckpoint = await db.on_writer(
            lambda c: c.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        )
        assert autocheckpoint == BACKSTOP_PAGES
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)"))
        before = size_of(path)
        runs = db.checkpoints.runs

        async with db.transaction() as conn:  # one big transaction
            for k in range(ROWS // 2):
                await conn.execute("INSERT INTO t VALUES (?, ?)", k, os.urandom(BLOB))
        await asyncio.gather(  # and group-committed writes
            *(
                db.write(
                    lambda c, k=k: c.execute("INSERT INTO t VALUES (?, ?)", (k, os.urandom(BLOB)))
                )
                for k in range(ROWS // 2, ROWS)
            )
        )
        assert await file_reaches(path, before + ROWS * BLOB) >= before + ROWS * BLOB
        assert db.checkpoints.runs > runs
        with sqlite3.connect(path) as other:
            assert other.execute("SELECT COUNT(*) FROM t").fetchone() == (ROWS,)
    finally:
        await db.close()
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "rk-sqlite-checkpoint"]


async def test_a_commit_leaves_the_copy_to_the_checkpointer(tmp_path: Path) -> None:
    """With the checkpointer closed, 10 MiB committed stay in the WAL: no commit below the
    backstop checkpoints on its own (SQLite's default would have at 4 MiB)."""
    path = tmp_path / "w.db"
    db = await SqliteDatabase.open(f"sqlite:///{path}", 1)
    try:
        await db.checkpoints.close()
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)"))
        before = size_of(path)
        for k in range(ROWS):
            await db.write(
                lambda c, k=k: c.execute("INSERT INTO t VALUES (?, ?)", (k, os.urandom(BLOB)))
            )
        assert size_of(path) == before
        wal = size_of(f"{path}-wal")
        assert wal >= ROWS * BLOB
    finally:
        await db.close()
    assert size_of(path) >= before + ROWS * BLOB  # the last connection checkpointed
