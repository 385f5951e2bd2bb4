"""``/trends`` in headless Chromium (issue 30): a visitor picks a tag, reads the chart and the
table, follows a riser, sees a bad colour explained; axe-core finds no violation at 1280 and
390 px, nothing overflows, and the screenshots ``docs/screenshots/trends-1280.png`` and
``trends-390.png`` are refreshed from this test when ``RK_TEST_SCREENSHOTS=docs/screenshots``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.platform.db.database import Database
from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.browser.test_accessibility import axe_source, violations
from tests.integration.spider.procs import Backend
from tests.integration.trends.archive import FW25, SS25, seed_trends
from tests.support.served import served_archive

__all__ = ["axe_source"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """``rk serve-backend`` (no model) with the known trends archive."""

    async def fill(storage: Storage, _pm: RkPluginManager, _db: Database) -> None:
        """Seed the known trends archive into the backend's database and storage."""
        await seed_trends(storage)

    root = tmp_path_factory.mktemp("trends") / "backend"
    with served_archive(root, fill) as (backend, _):
        yield backend


def test_a_visitor_follows_a_tag_and_a_riser(
    page: Page, site: Backend, axe_source: str, tmp_path: Path
) -> None:
    page.goto(f"{site.url}/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Trends").click()
    page.wait_for_url(f"{site.url}/trends")
    assert violations(page, axe_source) == []
    page.get_by_label("Tag").fill("trench coat")
    page.get_by_role("button", name="Show trend").click()
    heading = page.get_by_role("heading", name="Looks tagged “trench coat”, share per season")
    expect(heading).to_be_visible()
    chart = page.get_by_role("img", name="Share of looks tagged trench coat per season")
    expect(chart).to_be_visible()
    assert chart.locator("circle").count() == 3
    table = page.locator("table.trend-table")
    expect(table.get_by_role("row", name=f"{SS25} 8 1 12.5%")).to_be_visible()
    movers = page.get_by_role("heading", name=f"Risers and fallers: {SS25} → {FW25}")
    expect(movers).to_be_visible()
    assert violations(page, axe_source) == []
    assert horizontal_overflow(page) == 0
    screenshot(page, "trends-1280", tmp_path)

    page.get_by_role("table", name="Rising tags").get_by_role("link", name="tweed").click()
    expect(
        page.get_by_role("heading", name="Looks tagged “tweed”, share per season")
    ).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    assert download.value.suggested_filename == "rk-trend-tag-tweed.csv"

    page.goto(f"{site.url}/trends?colour=oxbloud")
    expect(page.get_by_role("alert")).to_contain_text("unknown colour 'oxbloud'")
    assert violations(page, axe_source) == []


def test_trends_fit_a_phone(
    browser: Browser, site: Backend, axe_source: str, tmp_path: Path
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{site.url}/trends?colour=camel")
        chart = page.get_by_role("img", name="Share of looks in camel per season")
        expect(chart).to_be_visible()
        assert violations(page, axe_source) == []
        assert horizontal_overflow(page) == 0
        screenshot(page, "trends-390", tmp_path)
    finally:
        context.close()
