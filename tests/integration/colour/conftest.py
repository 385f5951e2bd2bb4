"""Fixtures of the colour tests: a migrated database bound to the tables, a file store."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage, StorageContext


@pytest.fixture
def storage(tmp_path: Path, plugin_manager: RkPluginManager) -> Storage:
    """A file:// store where ``rk`` run with ``--data-dir tmp_path/data`` looks for media."""
    context = StorageContext(backend_url="http://127.0.0.1:9", secret="s")
    return open_storage(f"file://{tmp_path / 'data' / 'media'}", context, plugin_manager)
