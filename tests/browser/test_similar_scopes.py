"""Similar looks within a scope in headless Chromium, with JavaScript off: the image page's
tabs are links, each opens its scope's looks (the season's other shows, the designer's other
seasons, the street), the first of them above the fold at 1280×900, nothing overflowing at
phone width; screenshots of both (``RK_TEST_SCREENSHOTS=docs/screenshots`` keeps them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.archive_site import archive_backend
from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.integration.public.archive import Archive, seed
from tests.integration.spider.procs import Backend


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """``rk serve-backend`` with the tiny CLIP, the test archive seeded and embedded."""
    with archive_backend(tmp_path_factory.mktemp("scopes") / "backend", seed) as served:
        yield served


@pytest.fixture
def no_script(browser: Browser) -> Iterator[Page]:
    """A desktop page with JavaScript off."""
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    try:
        yield context.new_page()
    finally:
        context.close()


def rail_images(page: Page) -> set[int]:
    """The image ids of the similar rail's tiles."""
    hrefs = page.locator(".similar-rail__tiles a.tile").evaluate_all(
        "as => as.map(a => a.getAttribute('href'))"
    )
    return {int(href.rsplit("/", 1)[-1]) for href in hrefs}


def test_scope_tabs_are_links_that_open_each_scope(
    no_script: Page, site: tuple[Backend, Archive], tmp_path: Path
) -> None:
    backend, archive = site
    page = no_script
    look = archive.images["acne-ss25"][0]
    page.goto(f"{backend.url}/images/{look}")
    tabs = page.locator(".scopes .scopes__tab")
    expect(tabs).to_have_text(
        [
            "From this season",
            "From this designer's other seasons",
            "On the street",
            "Across the archive",
        ]
    )
    expect(page.locator('.scopes [aria-current="page"]')).to_have_text("Across the archive")
    expected = {
        "From this season": {*archive.images["aurele-ss25"], *archive.images["zeta-ss25"]},
        "From this designer's other seasons": set(archive.images["acne-fw24"]),
        "On the street": set(archive.images["street-jan"]),
    }
    for label, allowed in expected.items():
        page.locator(".scopes a", has_text=label).click()
        expect(page).to_have_url(re.compile(r"\?scope=[a-z]+#similar-looks$"))
        expect(page.locator('.scopes [aria-current="page"]')).to_have_text(label)
        shown = rail_images(page)
        assert shown, label
        assert shown <= allowed, label
        page.evaluate("window.scrollTo(0, 0)")  # the link's #similar-looks scrolled to it
        box = page.locator(".similar-rail .tile").first.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= 900, f"{label}: the first look ends below the fold"
    page.goto(f"{backend.url}/images/{look}?scope=season")
    screenshot(page, "similar-scopes-1280", tmp_path)

    photo = archive.images["street-jan"][0]
    page.goto(f"{backend.url}/images/{photo}")
    expect(page.locator(".scopes .scopes__tab").nth(2)).to_have_text("On the runway")
    expect(page.locator('.scopes [aria-disabled="true"]')).to_have_count(2)
    page.locator(".scopes a", has_text="On the runway").click()
    assert rail_images(page) <= {
        i
        for name in ("acne-ss25", "acne-fw24", "aurele-ss25", "aurele-fw24", "zeta-ss25")
        for i in archive.images[name]
    }


def test_scope_tabs_fit_a_phone(page: Page, site: tuple[Backend, Archive], tmp_path: Path) -> None:
    backend, archive = site
    page.set_viewport_size(PHONE)
    page.goto(f"{backend.url}/images/{archive.images['acne-ss25'][0]}?scope=designer")
    expect(page.locator('.scopes [aria-current="page"]')).to_have_text(
        "From this designer's other seasons"
    )
    expect(page.locator(".similar-rail .tile").first).to_be_visible()
    assert horizontal_overflow(page) == 0
    screenshot(page, "similar-scopes-phone", tmp_path)
