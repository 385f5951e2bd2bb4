"""Fixtures for the Vogue parser tests: the synthetic site's pages with a fixed base URL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.sites import render

SITE = Path(__file__).parents[3] / "sites" / "vogue"
BASE = "https://runway.test"


@pytest.fixture
def vogue_page() -> Callable[[str], tuple[str, str]]:
    """``vogue_page("fashion-shows/designers")`` → (html, url) of that page of the test site."""

    def load(path: str) -> tuple[str, str]:
        return render(SITE / f"{path}.html", BASE), f"{BASE}/{path}"

    return load
