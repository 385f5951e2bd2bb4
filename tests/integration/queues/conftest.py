"""Fixtures for the queue suites: a migrated database per engine, a hand-driven clock, rows."""

from __future__ import annotations

import pytest

from rk.server.db.migrate import migrate
from tests.integration.queues.helpers import Clock, Rows, fetch_rows


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
