"""SQLite writes are group-committed: concurrent writes share a transaction, yet each one
stays atomic on its own and answers only once it is committed."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from rk.server.platform.db.sqlite_database import SqliteDatabase


@pytest.fixture
async def conn(tmp_path: Path) -> SqliteDatabase:
    """A database in a fresh file with one table ``t(k UNIQUE, v)``."""
    db = await SqliteDatabase.open(f"sqlite:///{tmp_path / 'g.db'}", 1)
    await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER UNIQUE, v TEXT)"))
    return db


def rows_of(path: Path) -> list[tuple[int, str]]:
    """The table as another connection sees it (committed rows only)."""
    with sqlite3.connect(path) as other:
        return other.execute("SELECT k, v FROM t ORDER BY k").fetchall()


async def test_each_concurrent_write_gets_its_own_result(conn: SqliteDatabase) -> None:
    def insert(k: int):
        return lambda c: c.execute("INSERT INTO t VALUES (?, ?) RETURNING k", (k, "x")).fetchone()[
            0
        ]

    got = await asyncio.gather(*(conn.write(insert(k)) for k in range(50)))
    assert got == list(range(50))
    assert [k for k, _ in rows_of(conn.path)] == list(range(50))
    await conn.close()


async def test_a_failing_write_rolls_back_only_itself(conn: SqliteDatabase) -> None:
    def two_rows(k: int):
        def run(c: sqlite3.Connection) -> int:
            c.execute("INSERT INTO t VALUES (?, 'first')", (k,))
            c.execute("INSERT INTO t VALUES (?, 'second')", (k + 1000,))
            return k

        return run

    def clash(c: sqlite3.Connection) -> int:
        c.execute("INSERT INTO t VALUES (2000, 'kept?')")
        c.execute("INSERT INTO t VALUES (3, 'duplicate of a key written in the same batch')")
        return -1

    calls = [conn.write(two_rows(k)) for k in range(6)]
    calls.insert(4, conn.write(clash))
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[4], sqlite3.IntegrityError)
    assert results[:4] + results[5:] == list(range(6))
    keys = [k for k, _ in rows_of(conn.path)]
    assert keys == [*range(6), *range(1000, 1006)]
    await conn.close()


async def test_close_waits_for_pending_writes(conn: SqliteDatabase) -> None:
    pending = [
        asyncio.ensure_future(
            conn.write(lambda c, k=k: c.execute("INSERT INTO t VALUES (?, 'v')", (k,)))
        )
        for k in range(20)
    ]
    await asyncio.sleep(0)
    await conn.close()
    await asyncio.gather(*pending)
    assert len(rows_of(conn.path)) == 20
    with pytest.raises(RuntimeError, match="closed"):
        await conn.write(lambda c: None)
