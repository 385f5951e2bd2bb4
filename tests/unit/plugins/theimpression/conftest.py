"""Fixtures for The Impression parser tests: site files with fixed site and CDN hosts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rk.plugins.theimpression.images import ImagePolicy
from tests.support.sites import render

SITE = Path(__file__).parents[3] / "sites" / "theimpression"
BASE = "https://street.test"
CDN = "https://cdn.street.test"


@pytest.fixture
def site_file() -> Callable[[str], str]:
    """``site_file("feed/index.xml")`` → that file's text with the test hosts filled in."""

    def load(path: str) -> str:
        return render(SITE / path, BASE, CDN)

    return load


@pytest.fixture
def policy() -> ImagePolicy:
    """Photos from the test site's uploads and the test CDN, as served."""
    return ImagePolicy(
        upload_hosts=frozenset({"street.test"}), cdn_hosts=frozenset({"cdn.street.test"})
    )
