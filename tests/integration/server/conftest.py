"""Fixtures of the backend tests: a local image server and a backend factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from rk.core.api.plugins import RkPluginManager
from rk.core.config import Settings
from tests.integration.server.helpers import Backend, backend_settings, running_backend
from tests.integration.server.images import ImageServer, serve_images

StartBackend = Callable[..., Awaitable[Backend]]


@pytest.fixture
def images() -> Iterator[ImageServer]:
    """A local image server on 127.0.0.1."""
    with serve_images() as server:
        yield server


@pytest.fixture
async def start_backend(
    tmp_path: Path, plugin_manager: RkPluginManager, images: ImageServer
) -> AsyncIterator[StartBackend]:
    """Start a backend (embedded default unless told otherwise); stopped after the test.

    Unless a test says otherwise, the backend may fetch from the test's image server (its
    port only, as ``security.allow_private_hosts`` entries name host and port).
    """
    async with AsyncExitStack() as stack:

        async def start(settings: Settings | None = None, **kwargs: Any) -> Backend:
            kwargs.setdefault("allow", images.allow)
            chosen = settings or backend_settings(tmp_path, **kwargs)
            return await stack.enter_async_context(running_backend(chosen, plugin_manager))

        yield start
