"""Fixtures of the dataset-export tests: a migrated, seeded archive and its file store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage, StorageContext
from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """Each engine in turn, migrated and bound to the tables."""
    await migrate(any_dsn)
    database = await connect(any_dsn)
    try:
        yield database
    finally:
        await close(database)


@pytest.fixture
def storage(tmp_path: Path, plugin_manager: RkPluginManager) -> Storage:
    """A file:// store where ``rk`` run with ``RK_DATA_DIR=tmp_path/data`` finds media."""
    context = StorageContext(backend_url="http://127.0.0.1:9", secret="s")
    return open_storage(f"file://{tmp_path / 'data' / 'media'}", context, plugin_manager)
