"""Fixtures of the dataset-export tests: the file store ``rk`` finds under its data dir (the
migrated database is ``tests/integration/conftest.py``'s ``db``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage, StorageContext


@pytest.fixture
def storage(tmp_path: Path, plugin_manager: RkPluginManager) -> Storage:
    """A file:// store where ``rk`` run with ``RK_DATA_DIR=tmp_path/data`` finds media."""
    context = StorageContext(backend_url="http://127.0.0.1:9", secret="s")
    return open_storage(f"file://{tmp_path / 'data' / 'media'}", context, plugin_manager)
