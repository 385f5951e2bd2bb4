"""Fixtures every integration test may ask for by name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.database import Database
from tests.integration.server.helpers import Backend, backend_settings, running_backend
from tests.support.databases import migrated


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """Each engine in turn (``any_dsn``), migrated and bound to rk's tables."""
    async with migrated(any_dsn) as database:
        yield database


@pytest.fixture
async def site(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A running backend without a model, on SQLite and on PostgreSQL (``any_dsn``)."""
    async with running_backend(backend_settings(tmp_path, database=any_dsn), plugin_manager) as b:
        yield b
