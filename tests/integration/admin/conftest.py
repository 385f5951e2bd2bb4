"""Fixtures of the console's HTTP tests: a running backend on each engine."""

from __future__ import annotations

import pytest

from tests.integration.server.helpers import Backend


@pytest.fixture
def console(site: Backend) -> Backend:
    """The running backend on SQLite and on PostgreSQL (``site``) that the console's tests
    drive (its client follows no redirects)."""
    return site
