"""A NOTIFY listener outlives an outage of its connection: it listens again and wakes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg

from rk.server.platform.db.dsn import asyncpg_dsn
from rk.server.platform.db.pg_database import PgDatabase


async def eventually(check: Callable[[], bool], what: str = "the NOTIFY") -> None:
    """Poll ``check()`` for up to 30 s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not check():
        assert loop.time() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.05)


async def test_a_listener_whose_connection_is_killed_listens_again_and_wakes(pg_dsn: str) -> None:
    db = await PgDatabase.open(pg_dsn, pool_size=3)
    heard: list[int] = []
    try:
        assert await db.listen("rk_test_wake", lambda: heard.append(1))
        [(conn, _, _)] = db._listening
        pid = conn.get_server_pid()
        admin = await asyncpg.connect(asyncpg_dsn(pg_dsn))
        try:
            await admin.execute("SELECT pg_notify('rk_test_wake', '')")
            await eventually(lambda: len(heard) == 1)
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
            await eventually(lambda: len(heard) == 2, what="the wake-up after listening again")
            [(again, _, _)] = db._listening
            assert again.get_server_pid() != pid
            await admin.execute("SELECT pg_notify('rk_test_wake', '')")
            await eventually(lambda: len(heard) == 3, what="a NOTIFY after the outage")
        finally:
            await admin.close()
        assert await db.value("SELECT 1") == 1
    finally:
        await db.close()
    assert not db._listening
