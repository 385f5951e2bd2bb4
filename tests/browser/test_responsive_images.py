"""Images that fit the screen: tiles load renditions that fit them, never an original.

Runway-sized photos (1280×1920) are seeded without renditions, ``rk storage renditions``
makes their ladders against the running backend, and Chromium at 390×844, DPR 3 (and at
1280×900, DPR 2) opens the home page, a show page, an image page, a season page and a
designer page, scrolls each to the bottom so every lazy image loads, and reads what each
image fetched (``currentSrc``, the network) against the CSS width its layout gave it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from rk.core.api.storage import Storage
from tests.browser.archive_site import archive_backend
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.integration.public.archive import Archive, add_show
from tests.integration.spider.procs import Backend

RUNWAY = (1280, 1920)
ABOUT_3X = 3.3
""""At most about 3× its CSS width": 3 device pixels per CSS pixel, and the ladder's step."""
ORIGINAL = re.compile(r"/media/(runway|street)/[0-9a-f]{40}\.jpg$")
RENDITION = re.compile(r"/media/(r/\d+|thumb)/[0-9a-f]{40}\.(webp|jpg)$")
"""A rung of the ladder, or the thumbnail (a desktop tile at DPR 1-2 may need no more)."""
IMAGES = """async () => Promise.all([...document.querySelectorAll('main img')].map(
  async img => ({src: img.currentSrc, css: img.getBoundingClientRect().width,
    tile: !!img.closest('.tile'), loading: img.loading, priority: img.fetchPriority,
    pixels: await new Promise(done => {
      const copy = new Image();
      copy.onload = () => done(copy.naturalWidth);
      copy.src = img.currentSrc;
    })})))"""
"""What each image of the page shows: its URL, CSS width, and the pixel width of the file it
chose (``naturalWidth`` is in CSS pixels, divided by the candidate's density: a copy of the
file, from the cache, tells its own width)."""


async def runway_archive(storage: Storage) -> Archive:
    """Three published shows of runway-sized photos (one with details), no renditions yet."""
    archive = Archive()
    for n, brand in enumerate(["Acne Studios", "Maison Aurèle", "Nordlys"]):
        await add_show(
            storage,
            archive,
            f"show-{n}",
            brand=brand,
            season="Spring 2025 Ready-to-Wear",
            date=f"2024-10-0{n + 1}",
            looks=6 if n == 0 else 2,
            details=2 if n == 0 else 0,
            seed=n + 1,
            size=RUNWAY,
        )
    return archive


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """A backend with runway-sized shows, their vectors placed and their ladders made."""
    root = tmp_path_factory.mktemp("renditions") / "backend"
    with archive_backend(root, runway_archive) as (backend, archive):
        # a hang guard only: twelve runway-sized ladders take minutes on a loaded machine
        *_, last, left = backend.ok("storage", "renditions", timeout_s=900).splitlines()
        assert last.startswith("renditions: 12 of 12 originals (100 %): 12 given 60 rungs")
        assert left == "0 originals left without renditions"
        yield backend, archive


ON_SCREEN_LOADED = """[...document.images].filter(img => {
  const box = img.getBoundingClientRect(); return box.bottom > 0 && box.top < innerHeight;
}).every(img => img.complete && img.naturalWidth > 0)"""


def until(page: Page, script: str, timeout_s: float = 30) -> None:
    """Poll ``script`` in the page until it is true (``wait_for_function`` evaluates a string,
    which the site's CSP forbids)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(script):
        assert time.monotonic() < deadline, f"gave up waiting for {script}"
        page.wait_for_timeout(50)


def loaded_images(page: Page, url: str, screen_height: int) -> list[dict[str, Any]]:
    """Open ``url`` and scroll to the bottom, half a screen at a time, until the images on
    screen have loaded at each step (lazy ones too); what each image of the page shows."""
    page.goto(url)
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    for y in range(0, height, screen_height // 2):
        page.evaluate("y => window.scrollTo(0, y)", y)
        until(page, ON_SCREEN_LOADED)
    until(page, "[...document.images].every(img => img.complete && img.naturalWidth > 0)")
    return list(page.evaluate(IMAGES))


@pytest.mark.parametrize(
    ("screen", "dpr"), [(PHONE, 3), (DESKTOP, 2)], ids=["phone-dpr3", "desktop-dpr2"]
)
def test_tiles_load_renditions_that_fit_them_never_originals(
    browser: Browser,
    site: tuple[Backend, Archive],
    tmp_path: Path,
    screen: dict[str, int],
    dpr: int,
) -> None:
    backend, archive = site
    pages = {
        "home": "/",
        "show": f"/shows/{archive.shows['show-0']}",
        "image": f"/images/{archive.images['show-0'][0]}",
        "season": "/seasons/spring-2025-ready-to-wear",
        "designer": f"/brands/{archive.brands['Acne Studios']}",
    }
    least = {"image": 2, "designer": 1}
    for name, path in pages.items():
        # a first visit each: Chromium shows a wider rendition it holds already (another
        # page's tile) instead of fetching the one that fits
        context = browser.new_context(viewport=screen, device_scale_factor=dpr)
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda request, seen=requested: seen.append(request.url))
        try:
            images = loaded_images(page, f"{backend.url}{path}", screen["height"])
            tiles = [img for img in images if img["tile"]]
            assert len(tiles) >= least.get(name, 3), f"{name}: {images}"
            for img in tiles:
                assert RENDITION.search(img["src"]), f"{name}: a tile shows {img['src']}"
                assert img["pixels"] <= ABOUT_3X * img["css"], f"{name}: {img}"
            originals = [url for url in requested if ORIGINAL.search(url)]
            assert not originals, f"{name} fetched originals: {originals}"
            first, *rest = images
            assert first["loading"] != "lazy", first
            assert first["priority"] == "high", first
            assert all(img["priority"] != "high" for img in rest)
            if name == "image":
                assert all(img["loading"] == "lazy" for img in rest)
            page.evaluate("window.scrollTo(0, 0)")
            kind = "phone" if screen == PHONE else "desktop"
            screenshot(page, f"renditions-{name}-{kind}-dpr{dpr}", tmp_path)
        finally:
            context.close()


def test_the_photo_page_offers_the_ladder_and_keeps_jpeg_for_old_browsers(
    page: Page, site: tuple[Backend, Archive]
) -> None:
    backend, archive = site
    page.goto(f"{backend.url}/images/{archive.images['show-0'][0]}")
    source = page.locator(".photo__frame picture source")
    assert source.get_attribute("type") == "image/webp"
    webp = source.get_attribute("srcset") or ""
    assert re.findall(r" (\d+)w", webp) == ["256", "360", "560", "640", "800", "1200", "1280"]
    jpeg = page.locator(".photo__frame img").get_attribute("srcset") or ""
    assert re.findall(r" (\d+)w", jpeg) == ["256", "1280"]
    assert all(".jpg" in candidate for candidate in jpeg.split(","))
