"""Shared reads of the public change counters: never older than the request that asked,
whichever connection or process committed the change, and errors reach every waiter."""

from __future__ import annotations

import asyncio

from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.public_changes import CounterReads

BUMP = "UPDATE public_changes SET version = version + 1 WHERE name = 'content'"


async def test_a_read_asked_after_a_commit_sees_it_while_others_are_in_flight(
    db: Database, any_dsn: str
) -> None:
    reads = CounterReads()
    base = (await reads.read()).content
    other = await connect(any_dsn)  # another process's database path
    try:
        for step in range(1, 6):
            in_flight = [asyncio.create_task(reads.read()) for _ in range(8)]
            await asyncio.sleep(0)  # the shared read has started
            await other.execute(BUMP)
            after = await asyncio.gather(*(reads.read() for _ in range(8)))
            assert {changes.content for changes in after} == {base + step}
            earlier = await asyncio.gather(*in_flight)
            assert {changes.content for changes in earlier} <= {base + step - 1, base + step}
    finally:
        await close(other)
    # ``connect`` above re-bound the tables to ``other``, now closed: reads fail, each waiter
    # gets the error, and once bound again reads work
    failed = await asyncio.gather(*(reads.read() for _ in range(4)), return_exceptions=True)
    assert all(isinstance(outcome, Exception) for outcome in failed)
    await close(db)
    again = await connect(any_dsn)
    try:
        assert (await reads.read()).content == base + 5
    finally:
        await close(again)
