"""Storage fixtures: a real S3-compatible server (moto) and each scheme behind the /media routes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage, StorageContext
from tests.integration.storage.helpers import SECRET, new_bucket, run_moto, s3_url, serve_media
from tests.support.net import free_port


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    """One moto server shared by the tests of a module (each test uses its own bucket)."""
    with run_moto() as endpoint:
        yield endpoint


@pytest.fixture(params=["file", "memory", "s3"])
async def storage(
    request: pytest.FixtureRequest, tmp_path: Path, plugin_manager: RkPluginManager
) -> AsyncIterator[Storage]:
    """Each scheme in turn, opened through the plugin registry; file and memory get a backend."""
    port = free_port()
    context = StorageContext(backend_url=f"http://127.0.0.1:{port}", secret=SECRET)
    if request.param == "s3":
        endpoint = request.getfixturevalue("moto_endpoint")
        yield open_storage(s3_url(endpoint, new_bucket(endpoint)), context, plugin_manager)
        return
    url = f"file://{tmp_path / 'media'}" if request.param == "file" else "memory://"
    store = open_storage(url, context, plugin_manager)
    async with serve_media(store, SECRET, port):
        yield store
