"""Fixtures of the embedding tests: a migrated database bound to the tables, a file store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage, StorageContext
from tests.support.databases import migrated

BACKEND = "http://127.0.0.1:9"


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[str]:
    """Each engine in turn, migrated and bound to the tables; its DSN."""
    async with migrated(any_dsn):
        yield any_dsn


@pytest.fixture
def storage(tmp_path: Path, plugin_manager: RkPluginManager) -> Storage:
    """A file:// store whose URLs are the backend's /media route."""
    context = StorageContext(backend_url=BACKEND, secret="s")
    return open_storage(f"file://{tmp_path / 'media'}", context, plugin_manager)
