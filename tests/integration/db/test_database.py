"""The process's one database path: task-bound transactions shared by raw SQL, piccolo
tables and the queues, savepoints when nested, committed data only for other tasks."""

from __future__ import annotations

import asyncio

import pytest

from rk.core.config import QueueSettings
from rk.server.platform.db.database import Database, default_pool_size
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Article
from rk.server.platform.jobs.engine import JobQueue


class Boom(Exception):
    """Raised inside a transaction to roll it back."""


def ph(db: Database, n: int) -> str:
    """The engine's placeholder for parameter ``n``."""
    return "?" if db.engine == "sqlite" else f"${n}"


async def test_tables_queue_and_sql_commit_or_roll_back_together(db: Database) -> None:
    queue = JobQueue.on(db, QueueSettings())

    async def write_then_fail() -> None:
        async with db.transaction():
            await Article.insert(Article(source="vogue", show_key="a", kind="runway"))
            await queue.enqueue("crawl", "{}", 0)
            await db.execute("UPDATE brands SET name = name")
            assert await Article.count() == 1  # the transaction sees its own writes
            raise Boom

    with pytest.raises(Boom):
        await write_then_fail()
    assert await Article.count() == 0
    assert await db.value("SELECT COUNT(*) FROM ingest_jobs") == 0

    async with db.transaction():
        await Article.insert(Article(source="vogue", show_key="a", kind="runway"))
        job_id = await queue.enqueue("crawl", "{}", 0)
    assert await Article.count() == 1
    assert await db.value(f"SELECT status FROM ingest_jobs WHERE id = {ph(db, 1)}", job_id) == (
        "pending"
    )


async def test_nested_transaction_is_a_savepoint(db: Database) -> None:
    async def inner_fails() -> None:
        async with Article._meta.db.transaction():
            await Article.insert(Article(source="vogue", show_key="inner", kind="runway"))
            raise Boom

    async with db.transaction():
        await Article.insert(Article(source="vogue", show_key="outer", kind="runway"))
        with pytest.raises(Boom):
            await inner_fails()
    rows = await Article.select(Article.show_key)
    assert rows == [{"show_key": "outer"}]


async def test_other_tasks_see_committed_rows_only(db: Database) -> None:
    inserted = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            await Article.insert(Article(source="vogue", show_key="w", kind="runway"))
            inserted.set()
            await release.wait()

    task = asyncio.create_task(writer())
    await inserted.wait()
    assert await Article.count() == 0  # another task: outside the open transaction
    release.set()
    await task
    assert await Article.count() == 1


async def test_pool_size_formula() -> None:
    assert default_pool_size(1) == 9
    assert default_pool_size(4) == 12


async def test_a_held_reading_connection_sees_every_commit_at_its_next_statement(
    db: Database, any_dsn: str
) -> None:
    read = "SELECT version FROM public_changes WHERE name = 'content'"
    bump = "UPDATE public_changes SET version = version + 1 WHERE name = 'content'"
    start = await db.value(read)
    async with db.reading() as conn:
        assert await conn.value(read) == start
        await db.execute(bump)  # this process, another connection
        assert await conn.value(read) == start + 1
        other = await connect(any_dsn)  # another process's database path
        try:
            await other.execute(bump)
        finally:
            await close(other)
        assert await conn.value(read) == start + 2
        async with db.transaction():
            await db.execute(bump)
            assert await conn.value(read) == start + 2, "uncommitted writes are not seen"
        assert await conn.value(read) == start + 3
