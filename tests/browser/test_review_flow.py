"""The review flow in Chromium (issue 29), at 1280 and 390 px: the decision bar stays on screen
down a 60-look page, possible duplicates never push the looks below the fold, the crawl table
fits 1280 px with every task's actions in reach, and a batch is confirmed without JavaScript.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.browser.console_site import Console, running_console, sign_in

WIDTHS = {"desktop": DESKTOP, "phone": PHONE}
IN_VIEW = """sel => {
    const el = document.querySelector(sel), r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth
        && (hit === el || el.contains(hit));
}"""
"""Whether the element is inside the viewport and nothing covers its middle."""
SCROLL_TO = """sel => {
    const r = document.querySelector(sel).getBoundingClientRect();
    window.scrollBy(0, r.top - innerHeight / 2);
}"""
"""Scroll the page (only up or down) to bring the element's row to the middle."""


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A backend with an admin and two moderators, and a server of generated JPEGs."""
    yield from running_console(tmp_path_factory)


@pytest.fixture(autouse=True)
def patient_expect() -> Iterator[None]:
    """Wait up to 20 s for a page condition: the shared cores are often loaded."""
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=5_000)


def signed_in(page: Page, console: Console, name: str) -> None:
    """Sign in and wait for the dashboard, so the next page opens in the session."""
    sign_in(page, console, name)
    expect(page).to_have_url(f"{console.url}/admin")


def shows(console: Console, brand: str, looks: int, count: int = 1) -> list[int]:
    """Ingest ``count`` shows of ``brand`` with ``looks`` looks each; their article ids."""
    found = console.brand(brand)
    keys = [f"s25/{brand.lower().replace(' ', '-')}-{n}" for n in range(count)]
    jobs = [console.ingest(found, key, looks) for key in keys]
    for job in jobs:
        console.wait("SELECT 1 FROM ingest_jobs WHERE id = ? AND status = 'done'", job)
    return [int(console.one("SELECT id FROM articles WHERE show_key = ?", key)) for key in keys]


def test_the_decision_bar_stays_on_screen_down_a_60_look_page(
    page: Page, console: Console, tmp_path: Path
) -> None:
    [article] = shows(console, "Acne Studios", 60)
    signed_in(page, console, "mo")
    for name, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        page.goto(f"{console.url}/admin/articles/{article}")
        expect(page.locator(".review-grid .tile")).to_have_count(60)
        assert page.evaluate(IN_VIEW, ".decision-bar .btn--approve")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_function("window.scrollY > 2000")
        assert page.evaluate(IN_VIEW, ".decision-bar .btn--approve"), name
        assert page.evaluate(IN_VIEW, ".decision-bar .reject > summary"), name
        assert horizontal_overflow(page) == 0, name
        page.screenshot(path=str(tmp_path / f"review-scrolled-{name}.png"))
    page.keyboard.press("r")
    expect(page.locator(".reject__panel")).to_be_visible()
    assert page.evaluate(IN_VIEW, ".reject__panel button[type=submit]")


def test_possible_duplicates_leave_the_looks_in_view(
    page: Page, console: Console, tmp_path: Path
) -> None:
    copy, *others = shows(console, "Nordlys", 2, count=13)
    first_image = "SELECT MIN(id) FROM images WHERE article_id = ?"
    mine = console.one(first_image, copy)
    console.write(
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (?, 'test-model', ?, ?, 0.99)",
        [(mine, console.one(first_image, other), rank) for rank, other in enumerate(others)],
    )
    signed_in(page, console, "mo")
    for name, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        page.goto(f"{console.url}/admin/articles/{copy}")
        expect(page.locator(".dup-note")).to_have_text(
            "12 possible duplicates · compare side by side"
        )
        assert page.evaluate(IN_VIEW, ".review-grid .tile"), name
        screenshot(page, f"admin-review-duplicates-{name}", tmp_path)
    page.locator(".dup-note a").click()
    expect(page.locator(".compare__side")).to_have_count(2)
    expect(page.locator("nav.tabs a")).to_have_count(12)
    assert horizontal_overflow(page) == 0


def test_the_crawl_table_fits_1280_with_every_action_in_reach(
    page: Page, console: Console, tmp_path: Path
) -> None:
    brand = console.brand("Atelier Hanakawa-Lindqvist Haute Couture de Paris et Milano")
    brand_id = console.one("SELECT id FROM brands WHERE uid = ?", brand[0])
    error = "vogue.com answered 503 Service Unavailable after 4 tries (GET /fashion-shows/x) " * 3
    now = int(time.time())
    tasks = [
        ("queued", 0, "", ""),
        ("running", 0, "", "spider-paris-with-a-long-host-name-1.example.internal"),
        ("done", 0, "", "spider-oslo-1"),
        ("done", 2, error, "spider-oslo-1"),
        ("done", 3, "", "spider-oslo-1"),
        ("failed", 1, error, "spider-paris-2"),
        ("canceled", 0, "", ""),
    ]
    console.write(
        "INSERT INTO crawl_tasks (brand_id, source, status, priority, max_shows, worker, attempts,"
        " shows_submitted, last_error, created_at, updated_at, locked_at, season)"
        " VALUES (?, 'vogue', ?, 5, 0, ?, 3, ?, ?, ?, ?, 0, 'spring-2025-ready-to-wear')",
        [(brand_id, status, worker, sent, text, now, now) for status, sent, text, worker in tasks],
    )
    signed_in(page, console, "ada")
    for name, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        page.goto(f"{console.url}/admin/crawl")
        rows = page.locator("#crawl-tasks tbody tr")
        expect(rows).to_have_count(len(tasks))
        assert horizontal_overflow(page) == 0, name
        if name == "desktop":
            wrap = "#crawl-tasks .table-wrap"
            assert page.evaluate(f"document.querySelector('{wrap}').scrollWidth") <= page.evaluate(
                f"document.querySelector('{wrap}').clientWidth"
            )
        for n in range(1, len(tasks) + 1):
            button = f"#crawl-tasks tbody tr:nth-child({n}) .row-actions .btn"
            page.evaluate(SCROLL_TO, button)
            assert page.evaluate(IN_VIEW, button), (name, n)
        screenshot(page, f"admin-crawl-table-{name}", tmp_path)
    expect(page.locator(".badge--warning", has_text="no shows")).to_have_count(1)


def test_a_batch_is_confirmed_without_javascript(browser: Browser, console: Console) -> None:
    chosen = shows(console, "Kestrel & Vine", 1, count=2)
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    try:
        signed_in(page, console, "mo")
        page.goto(f"{console.url}/admin/articles?tab=pending")
        for article in chosen:
            page.locator(f'tbody input[name="id"][value="{article}"]').check()
        page.get_by_role("button", name="Reject selected").click()
        expect(page.locator("h1")).to_have_text("Reject 2 articles?")
        expect(page.locator(".confirm__list li")).to_have_count(2)
        assert {console.one("SELECT status FROM articles WHERE id = ?", a) for a in chosen} == {
            "pending"
        }
        page.get_by_label("Not a runway or street-style gallery").check()
        page.get_by_role("button", name="Reject 2 articles").click()
        expect(page.locator(".flash--success")).to_have_text("Rejected 2 articles")
        assert {console.one("SELECT status FROM articles WHERE id = ?", a) for a in chosen} == {
            "rejected"
        }
    finally:
        context.close()
