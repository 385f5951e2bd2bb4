"""Fixtures every integration test may ask for by name."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rk.server.platform.db.database import Database
from tests.support.databases import migrated


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """Each engine in turn (``any_dsn``), migrated and bound to rk's tables."""
    async with migrated(any_dsn) as database:
        yield database
