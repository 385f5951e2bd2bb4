"""Fixtures for the queue suites: a migrated database per engine, a hand-driven clock, rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from rk.core.config import QueueSettings
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.engine import JobQueue
from tests.integration.queues.helpers import Clock, MakeQueue, Rows, fetch_rows


@pytest.fixture
async def queue_dsn(any_dsn: str) -> str:
    """A fresh database of each engine with rk's migrations applied."""
    await migrate(any_dsn)
    return any_dsn


@pytest.fixture
def clock() -> Clock:
    """A fixed clock for the engine under test."""
    return Clock()


@pytest.fixture
def rows(queue_dsn: str) -> Rows:
    """``await rows("SELECT …")`` on the test's database, read outside the code under test."""
    return lambda sql: fetch_rows(queue_dsn, sql)


@pytest.fixture
async def make_queue(queue_dsn: str) -> AsyncIterator[MakeQueue]:
    """Queues on the test database, each with its own connections (like processes)."""
    made: list[JobQueue] = []

    async def make(settings: QueueSettings | None = None, **kwargs: Any) -> JobQueue:
        queue = await JobQueue.open(queue_dsn, settings or QueueSettings(), **kwargs)
        made.append(queue)
        return queue

    yield make
    for queue in made:
        await queue.close()
