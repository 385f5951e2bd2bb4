"""Fixtures of the console's HTTP tests: a running backend on each engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from tests.integration.server.helpers import Backend, backend_settings, running_backend


@pytest.fixture
async def console(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A backend on SQLite and on PostgreSQL (its client follows no redirects)."""
    async with running_backend(backend_settings(tmp_path, database=any_dsn), plugin_manager) as b:
        yield b
