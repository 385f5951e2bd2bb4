"""Fixtures of the public site's HTTP tests: a running backend on each engine, seeded."""

from __future__ import annotations

import pytest

from tests.integration.public.archive import Archive, seed
from tests.integration.server.helpers import Backend


@pytest.fixture
async def archive(site: Backend) -> Archive:
    """The standard test archive in ``site``."""
    return await seed(site.storage)
