"""Fixtures of the trends tests: a running backend on each engine (``site``) and the known
archive of ``archive.seed_trends`` in it."""

from __future__ import annotations

import pytest

from tests.integration.server.helpers import Backend
from tests.integration.trends.archive import TrendArchive, seed_trends


@pytest.fixture
async def trend_archive(site: Backend) -> TrendArchive:
    """The known trends archive in ``site``."""
    return await seed_trends(site.storage)
