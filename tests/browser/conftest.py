"""Browser tests: Debian's Chromium driven by Playwright, against real ``rk`` processes.

No Playwright browser download: ``executable_path`` is the system Chromium, with the flags
PITFALLS.md lists. Every page a test opens is watched: a request to any host other than
127.0.0.1 fails the test (closed networks have no CDN). Screenshots go to the test's tmp
dir, and also to ``$RK_TEST_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.integration.spider.procs import Backend
from tests.support.skips import skip_or_fail

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium per test module (see the module docstring for why not more)."""
    if not CHROMIUM.exists():
        skip_or_fail(f"{CHROMIUM} not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh desktop-sized page; fails the test if it requested anything off 127.0.0.1."""
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    outside: list[str] = []

    def watch(request: object) -> None:
        url = str(getattr(request, "url", ""))
        host = urlsplit(url).hostname
        if url.startswith(("http:", "https:")) and host not in LOCAL_HOSTS:
            outside.append(url)

    opened.on("request", watch)
    try:
        yield opened
    finally:
        context.close()
    assert not outside, f"pages requested assets off this machine: {outside[:5]}"


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[Backend]:
    """``rk serve-backend`` on the embedded default (SQLite + files) in the test's tmp dir."""
    root = tmp_path / "backend"
    started = Backend(root, f"sqlite:///{root / 'data' / 'rk.sqlite3'}").start()
    try:
        yield started
    finally:
        started.stop()


def screenshot(page: Page, name: str, tmp_path: Path) -> Path:
    """Save a full-page PNG as ``<name>.png`` (tmp dir, plus ``$RK_TEST_SCREENSHOTS``)."""
    target = tmp_path / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    extra = os.environ.get("RK_TEST_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(extra) / f"{name}.png"), full_page=True)
    return target


def horizontal_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when nothing overflows)."""
    return int(
        page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    )
