"""Fixtures of the trends tests: a running backend on each engine (``site``) and the known
archive of ``archive.seed_trends`` in it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from tests.integration.server.helpers import Backend, backend_settings, running_backend
from tests.integration.trends.archive import TrendArchive, seed_trends


@pytest.fixture
async def site(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A backend without a model, on SQLite and on PostgreSQL."""
    async with running_backend(backend_settings(tmp_path, database=any_dsn), plugin_manager) as b:
        yield b


@pytest.fixture
async def trend_archive(site: Backend) -> TrendArchive:
    """The known trends archive in ``site``."""
    return await seed_trends(site.storage)
