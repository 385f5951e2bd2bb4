"""A board's round trip in Chromium (issue 33): save looks from grids and an image page into
the browser's board, reorder and note them, share; open the view link in another browser
context (no localStorage), edit with the edit link only; axe-core on every board page.
``RK_TEST_SCREENSHOTS=docs/screenshots`` refreshes the docs' ``board-*.png``."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.platform.db.database import Database
from tests.browser.conftest import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.browser.test_accessibility import axe_source, report, violations
from tests.integration.public.archive import Archive, seed
from tests.integration.spider.procs import RK, Backend, clean_env
from tests.support.served import served_archive

__all__ = ["axe_source"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """``rk serve-backend`` on SQLite with the standard test archive."""

    async def fill(storage: Storage, pm: RkPluginManager, engine: Database) -> Archive:
        return await seed(storage)

    root = tmp_path_factory.mktemp("boards") / "backend"
    with served_archive(root, fill) as served:
        yield served


def saved_ids(page: Page) -> list[int]:
    """The image ids of the board kept in this browser, in order."""
    ids: list[int] = page.evaluate(
        "JSON.parse(localStorage.getItem('rk.board') || '{\"items\": []}')"
        ".items.map(i => i.image_id)"
    )
    return ids


def test_a_board_round_trips_from_local_to_shared_to_edited(
    browser: Browser, site: tuple[Backend, Archive], axe_source: str, tmp_path: Path
) -> None:
    backend, archive = site
    looks = archive.images["acne-ss25"]
    street = archive.images["street-jan"][0]
    mine = browser.new_context(viewport=DESKTOP)
    page = mine.new_page()
    page.goto(f"{backend.url}/shows/{archive.shows['acne-ss25']}")
    for look in (looks[1], looks[0], looks[2]):
        page.locator(f'[data-save="{look}"]').click()
    expect(page.locator(f'[data-save="{looks[0]}"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-board-link]")).to_have_text("Board (3)")
    found = {"show with Save buttons": violations(page, axe_source)}
    screenshot(page, "board-saving-1280", tmp_path)
    page.goto(f"{backend.url}/images/{street}")
    page.locator(".photo__actions [data-save]").click()
    found["image with Save"] = violations(page, axe_source)
    assert saved_ids(page) == [looks[1], looks[0], looks[2], street]

    page.goto(f"{backend.url}/boards")
    page.get_by_label("Title").fill("Trend story: coats")
    page.get_by_label("Title").dispatch_event("change")
    page.get_by_role("button", name="Move up item 2").click()
    assert saved_ids(page) == [looks[0], looks[1], looks[2], street]
    page.locator("#local-note-3").fill("street reference")
    page.locator("#local-note-3").dispatch_event("change")
    page.get_by_role("button", name="Share board").click()
    view_link = page.locator("[data-view-link]")
    expect(view_link).to_be_visible()
    view_url, edit_url = view_link.inner_text(), page.locator("[data-edit-link]").inner_text()
    assert re.fullmatch(rf"{backend.url}/boards/[\w-]{{22}}", view_url)
    assert edit_url.startswith(f"{view_url}/edit?key=")
    found["local board"] = violations(page, axe_source)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "board-local-1280", tmp_path)
    mine.close()

    other = browser.new_context(viewport=DESKTOP)
    visitor = other.new_page()
    visitor.goto(view_url)
    assert visitor.evaluate("localStorage.length") == 0
    expect(visitor.locator("h1")).to_have_text("Trend story: coats")
    hrefs = visitor.locator(".board-item a.board-item__image").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    assert hrefs == [f"/images/{looks[i]}" for i in (0, 1, 2)] + [f"/images/{street}"]
    expect(visitor.locator(".board-item__note")).to_have_text("street reference")
    expect(visitor.locator("form")).to_have_count(1)  # the header's search, nothing to edit
    found["board"] = violations(visitor, axe_source)
    answer = visitor.goto(f"{view_url}/edit")
    assert answer is not None
    assert answer.status == 403

    visitor.goto(edit_url)
    visitor.get_by_label("Title").fill("Coats, final")
    visitor.get_by_role("button", name="Save title").click()
    expect(visitor.locator(".flash")).to_have_text("Title saved.")
    visitor.get_by_role("button", name="Move down item 1").click()
    visitor.get_by_role("button", name="Remove item 3").click()
    expect(visitor.locator(".flash")).to_have_text("Item removed.")
    found["edit"] = violations(visitor, axe_source)
    screenshot(visitor, "board-edit-1280", tmp_path)
    visitor.goto(view_url)
    expect(visitor.locator("h1")).to_have_text("Coats, final")
    hrefs = visitor.locator(".board-item a.board-item__image").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    assert hrefs == [f"/images/{looks[1]}", f"/images/{looks[0]}", f"/images/{street}"]
    rejected = subprocess.run(
        [
            *(RK, "articles", "reject", str(archive.shows["street-jan"])),
            *("--config", str(backend.config), "--data-dir", str(backend.data_dir)),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert rejected.returncode == 0, rejected.stderr
    visitor.reload()
    gone = visitor.locator(".board-item--gone")
    expect(gone).to_have_count(1)
    expect(gone).to_contain_text("No longer available")
    expect(gone.locator("img")).to_have_count(0)
    expect(gone.locator(".board-item__note")).to_have_text("street reference")
    screenshot(visitor, "board-1280", tmp_path)
    other.close()

    phone = browser.new_context(viewport=PHONE)
    small = phone.new_page()
    small.goto(view_url)
    assert horizontal_overflow(small) == 0
    found["board, phone"] = violations(small, axe_source)
    screenshot(small, "board-390", tmp_path)
    phone.close()
    dark = browser.new_context(viewport=DESKTOP, color_scheme="dark")
    night = dark.new_page()
    night.goto(view_url)
    found["board, dark"] = violations(night, axe_source)
    dark.close()
    assert not any(found.values()), report(found)


def test_board_pages_work_without_javascript(
    browser: Browser, site: tuple[Backend, Archive]
) -> None:
    backend, archive = site
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{backend.url}/shows/{archive.shows['acne-ss25']}")
    expect(page.locator("[data-save]")).to_have_count(0)
    page.goto(f"{backend.url}/boards")
    expect(page.get_by_text("Saving looks to a board needs JavaScript.")).to_be_visible()
    context.close()
