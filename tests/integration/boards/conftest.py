"""Fixtures of the boards' HTTP tests: the public site's seeded backend on each engine, and
one with tight board limits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from rk.core.api.plugins import RkPluginManager
from tests.integration.boards.boards import TIGHT
from tests.integration.public.archive import Archive, seed
from tests.integration.server.helpers import Backend, backend_settings, running_backend


@pytest.fixture
async def tight(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A backend whose board limits are ``TIGHT``."""
    settings = msgspec.structs.replace(backend_settings(tmp_path, database=any_dsn), boards=TIGHT)
    async with running_backend(settings, plugin_manager) as b:
        yield b


@pytest.fixture
async def archive(site: Backend) -> Archive:
    """The standard test archive in ``site``."""
    return await seed(site.storage)


@pytest.fixture
async def tight_archive(tight: Backend) -> Archive:
    """The standard test archive in ``tight``."""
    return await seed(tight.storage)
