"""Fixtures for source tests: the synthetic sites served over 127.0.0.1 and an HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.sites import TINY_JPEG, SiteServer, serve_site, serve_wp_rest

SITES = Path(__file__).parents[2] / "sites"


@pytest.fixture
def vogue_site() -> Iterator[SiteServer]:
    """The synthetic Vogue Runway site; every ``/photos/…`` path answers a tiny JPEG."""
    with serve_site(SITES / "vogue") as site:
        site.route("/photos/*", body=TINY_JPEG, headers={"Content-Type": "image/jpeg"})
        yield site


@pytest.fixture
def impression_site() -> Iterator[SiteServer]:
    """The synthetic The Impression site with its REST API on; uploads answer a tiny JPEG."""
    with serve_site(SITES / "theimpression") as site:
        site.route("/wp-content/uploads/*", body=TINY_JPEG, headers={"Content-Type": "image/jpeg"})
        serve_wp_rest(site)
        yield site


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    """A plain httpx client without retries: the source sees every answer as the site sent it."""
    async with httpx.AsyncClient(timeout=10) as http:
        yield http
