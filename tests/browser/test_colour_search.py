"""Search by colour in headless Chromium (issue 30): a visitor picks a swatch or types a
colour name or #hex, sees only looks of that colour, and a bad colour explained beside the
box; at desktop and phone width, screenshots kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.colour import compute_colours
from rk.server.platform.db.database import Database
from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.integration.colour.archive import LOOKS, Archive, hex_of, seed_archive
from tests.integration.spider.procs import Backend
from tests.support.served import served_archive


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """``rk serve-backend`` (no model) with the flat-colour archive, every image measured."""

    async def fill(storage: Storage, _: RkPluginManager, engine: Database) -> Archive:
        archive = await seed_archive(storage)
        report = await compute_colours(engine, storage, sorted(archive.colour_of))
        assert report.failed == {}
        return archive

    with served_archive(tmp_path_factory.mktemp("colour") / "backend", fill) as served:
        yield served


def result_ids(page: Page) -> list[int]:
    """Image ids of the result tiles, in order."""
    hrefs = page.locator(".grid a.tile").evaluate_all(
        "tiles => tiles.map(t => t.getAttribute('href'))"
    )
    return [int(str(href).rsplit("/", 1)[1]) for href in hrefs]


def test_a_swatch_and_a_typed_colour_find_only_that_colour(
    page: Page, site: tuple[Backend, Archive], tmp_path: Path
) -> None:
    backend, archive = site
    page.goto(f"{backend.url}/search")
    swatches = page.get_by_role("navigation", name="Colours of published looks")
    navy = swatches.get_by_role("link", name=re.compile(r"^navy 12$"))
    expect(navy).to_be_visible()
    navy.click()
    page.wait_for_url(f"{backend.url}/search?colour=navy")
    expect(page.get_by_role("heading", name="Looks in navy")).to_be_visible()
    expect(navy).to_have_attribute("aria-current", "true")
    found = result_ids(page)
    assert len(found) == LOOKS
    assert all(archive.colour_of[i] == hex_of("navy") for i in found)
    assert horizontal_overflow(page) == 0
    screenshot(page, "colour-search-desktop", tmp_path)

    page.get_by_label("…or by colour: a name or #hex").fill(hex_of("oxblood"))
    page.get_by_role("button", name="Search by colour").click()
    expect(page.get_by_role("heading", name=f"Looks in {hex_of('oxblood')}")).to_be_visible()
    assert all(archive.colour_of[i] == hex_of("oxblood") for i in result_ids(page)[:10])

    page.get_by_label("…or by colour: a name or #hex").fill("oxbloud")
    page.get_by_role("button", name="Search by colour").click()
    field = page.get_by_label("…or by colour: a name or #hex")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#e-colour")).to_contain_text("did you mean oxblood?")
    screenshot(page, "colour-search-error", tmp_path)


def test_the_colour_search_fits_a_phone(
    browser: Browser, site: tuple[Backend, Archive], tmp_path: Path
) -> None:
    backend, archive = site
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{backend.url}/search?colour=camel")
        expect(page.get_by_role("heading", name="Looks in camel")).to_be_visible()
        found = result_ids(page)
        assert len(found) == LOOKS
        assert all(archive.colour_of[i] == hex_of("camel") for i in found)
        assert horizontal_overflow(page) == 0
        screenshot(page, "colour-search-phone", tmp_path)
    finally:
        context.close()
