"""Fixtures of the public site's HTTP tests: a running backend on each engine, seeded."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from tests.integration.public.archive import Archive, seed
from tests.integration.server.helpers import Backend, backend_settings, running_backend


@pytest.fixture
async def site(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A backend without a model, on SQLite and on PostgreSQL."""
    async with running_backend(backend_settings(tmp_path, database=any_dsn), plugin_manager) as b:
        yield b


@pytest.fixture
async def archive(site: Backend) -> Archive:
    """The standard test archive in ``site``."""
    return await seed(site.storage)
