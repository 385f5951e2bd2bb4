"""The shared layout: error pages for browsers, JSON for API clients, assets served by rk."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Page

from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.integration.spider.procs import Backend


def test_unknown_page_is_a_page_in_the_layout(page: Page, backend: Backend, tmp_path: Path) -> None:
    answer = page.goto(f"{backend.url}/no/such/page")
    assert answer is not None
    assert answer.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert page.locator("header .wordmark").inner_text() == "rk"
    assert page.locator('a[href="/search"]').count() >= 1
    font = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "system-ui" in font, f"the stylesheet did not apply: {font}"
    assert horizontal_overflow(page) == 0
    screenshot(page, "error-404-desktop", tmp_path)
    page.set_viewport_size(PHONE)
    assert horizontal_overflow(page) == 0
    screenshot(page, "error-404-phone", tmp_path)


def test_api_clients_get_json_errors_even_when_they_accept_html(backend: Backend) -> None:
    html = {"accept": "text/html,*/*"}
    api = httpx.get(f"{backend.url}/api/no-such-thing", headers=html)
    assert api.status_code == 404
    assert api.headers["content-type"].startswith("application/json")
    assert "error" in api.json()
    plain = httpx.get(f"{backend.url}/no/such/page")
    assert plain.status_code == 404
    assert plain.json()["error"]


def test_assets_are_served_by_rk_with_long_caching(page: Page, backend: Backend) -> None:
    page.goto(f"{backend.url}/no/such/page")
    css = page.locator('link[rel="stylesheet"]').get_attribute("href")
    scripts = page.locator("script[src]").evaluate_all("s => s.map(e => e.getAttribute('src'))")
    assert css is not None
    assert css.startswith("/static/rk.css?v=")
    assert any(script.startswith("/static/rk.js?v=") for script in scripts)
    assert all(script.startswith("/static/") for script in scripts)
    for url in (css, *scripts, "/static/favicon.svg"):
        answer = httpx.get(f"{backend.url}{url}")
        assert answer.status_code == 200, url
        assert "max-age=31536000" in answer.headers["cache-control"]
    assert httpx.get(f"{backend.url}/static/../app.py").status_code == 404
