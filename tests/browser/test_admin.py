"""The moderation console in headless Chromium against a real ``rk serve-backend``.

A moderator signs in (a wrong password is refused, the sixth attempt is rate-limited),
an admin adds a brand and queues its crawl, a signed spider-less ingest brings in pending
articles, one is reviewed with the keyboard and approved, another rejected, a third
deleted (its media cleaned); a moderator is refused an admin page, a signed-out visitor
is sent to sign in, and a form posted without its CSRF token is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.browser.console_site import PASSWORD, Console, running_console, sign_in


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A backend with an admin and two moderators, and a server of generated JPEGs."""
    yield from running_console(tmp_path_factory)


@pytest.fixture(autouse=True)
def patient_expect() -> Iterator[None]:
    """Wait up to 20 s for a page condition: the shared cores are often loaded (a failed
    run of the full browser suite at load average 10 passed alone)."""
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=5_000)


def test_signed_out_visitor_is_sent_to_sign_in(page: Page, console: Console) -> None:
    page.goto(f"{console.url}/admin/crawl")
    expect(page).to_have_url(re.compile(r"/admin/sign-in\?next=/admin/crawl$"))
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{console.url}/admin/crawl")
    expect(page.locator("h1")).to_have_text("Crawl queue")


def test_wrong_password_refused_then_rate_limited(
    page: Page, console: Console, tmp_path: Path
) -> None:
    for _ in range(5):
        sign_in(page, console, "rl", "not the password")
        expect(page.locator(".field__error")).to_have_text("Wrong user name or password.")
    sign_in(page, console, "rl")
    expect(page.locator(".flash--error")).to_contain_text("Too many failed attempts. Try again in")
    assert "/admin/sign-in" in page.url
    screenshot(page, "admin-rate-limited", tmp_path)


def test_moderator_is_refused_an_admin_page(page: Page, console: Console) -> None:
    sign_in(page, console, "mo")
    expect(page.locator("h1")).to_have_text("Dashboard")
    expect(page.locator(".site-nav a", has_text="Crawl")).to_have_count(0)
    answer = page.goto(f"{console.url}/admin/brands")
    assert answer is not None
    assert answer.status == 403
    expect(page.locator("h1")).to_have_text("Not allowed")


def test_form_post_without_csrf_is_refused(page: Page, console: Console) -> None:
    sign_in(page, console, "ada")
    before = console.one("SELECT COUNT(*) FROM brands")
    page.goto(f"{console.url}/admin/brands")
    page.evaluate(
        'document.querySelector(\'form[action="/admin/brands/add"] '
        "input[name=_csrf_token]').remove()"
    )
    page.get_by_label("Name").fill("Forged Brand")
    page.get_by_role("button", name="Add brand").click()
    expect(page.locator("h1")).to_have_text("Not allowed")
    assert console.one("SELECT COUNT(*) FROM brands") == before


def test_add_brand_queue_crawl_review_approve_reject_delete(
    page: Page, console: Console, tmp_path: Path
) -> None:
    sign_in(page, console, "ada")
    page.get_by_role("link", name="Brands").click()
    page.get_by_label("Name").fill("Maison Aurèle")
    page.get_by_label("vogue slug").fill("maison-aurele")
    page.get_by_role("button", name="Add brand").click()
    expect(page.locator(".flash--success")).to_have_text("Added Maison Aurèle.")
    page.get_by_role("button", name="Queue crawl").click()
    expect(page.locator(".flash--success")).to_contain_text("for the newest 3 shows")
    page.get_by_role("link", name="Crawl", exact=True).click()
    row = page.locator("tbody tr", has_text="Maison Aurèle")
    expect(row).to_have_count(1)
    expect(row.locator(".badge")).to_have_text("queued")

    uid = console.one("SELECT uid FROM brands WHERE name = ?", "Maison Aurèle")
    brand = (uid, "Maison Aurèle")
    jobs = [console.ingest(brand, f"s25/{name}", 3) for name in ("a", "b", "c")]
    for job in jobs:
        console.wait("SELECT 1 FROM ingest_jobs WHERE id = ? AND status = 'done'", job)
    # Two ingest workers: ids follow whichever job finished first, so name them by id. The
    # review queue goes oldest first: third is reviewed first, then second; first is left.
    with console.db() as db:
        third, second, first = (row[0] for row in db.execute("SELECT id FROM articles ORDER BY id"))

    page.goto(f"{console.url}/admin/articles")
    expect(page.locator("tbody tr")).to_have_count(3)
    page.locator(f'a[href="/admin/articles/{third}"]').last.click()
    expect(page.locator(".review-grid .tile")).to_have_count(3)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".review-grid .tile.is-current")).to_have_attribute("data-label", "Look 2")
    page.keyboard.press("Enter")
    expect(page.locator("[data-loupe]")).to_be_visible()
    expect(page.locator("[data-loupe-label]")).to_have_text("Look 2 (2 of 3)")
    page.keyboard.press("ArrowRight")
    expect(page.locator("[data-loupe-label]")).to_have_text("Look 3 (3 of 3)")
    screenshot(page, "admin-review-loupe", tmp_path)
    page.keyboard.press("Escape")
    expect(page.locator("[data-loupe]")).to_be_hidden()
    page.keyboard.press("a")
    expect(page.locator(".flash--success")).to_have_text("Published 1 article")
    expect(page).to_have_url(f"{console.url}/admin/articles/{second}")
    assert console.one("SELECT status FROM articles WHERE id = ?", third) == "published"
    page.get_by_role("button", name="Undo").click()
    expect(page.locator(".flash--success")).to_contain_text("is pending again")
    expect(page).to_have_url(f"{console.url}/admin/articles/{third}")
    assert console.one("SELECT status FROM articles WHERE id = ?", third) == "pending"
    page.keyboard.press("a")
    expect(page).to_have_url(f"{console.url}/admin/articles/{second}")

    page.keyboard.press("r")
    expect(page.locator(".reject__panel")).to_be_visible()
    page.get_by_label("Wrong brand or season").check()
    page.get_by_role("button", name="Reject this article").click()
    expect(page.locator(".flash--success")).to_have_text("Rejected 1 article")
    expect(page).to_have_url(f"{console.url}/admin/articles/{first}")
    page.goto(f"{console.url}/admin/articles?tab=pending")
    expect(page.locator(f'tbody a[href="/admin/articles/{second}"]')).to_have_count(0)
    expect(page.locator(f'tbody a[href="/admin/articles/{first}"]')).to_have_count(2)
    page.goto(f"{console.url}/admin/articles/{third}")
    expect(page.locator(".audit-list li").first).to_contain_text("ada")
    expect(page.locator(".audit-list li").nth(1)).to_contain_text("published → pending undo")

    keys = [
        row[0]
        for row in console.db()
        .execute("SELECT key FROM images WHERE article_id = ?", (first,))
        .fetchall()
    ]
    assert keys
    assert all(console.backend.media_path(key).exists() for key in keys)
    page.goto(f"{console.url}/admin/articles/{first}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    expect(page.locator(".flash--success")).to_have_text("Deleted 1 article")
    console.wait(
        "SELECT 1 FROM ingest_jobs WHERE kind = 'media_cleanup' AND status = 'done'"
        " AND outcome = 'cleaned'"
    )
    assert not any(console.backend.media_path(key).exists() for key in keys)
    page.goto(f"{console.url}/admin/articles?tab=deleted")
    expect(page.locator(f'tbody a[href="/admin/articles/{first}"]')).to_have_count(2)
    assert horizontal_overflow(page) == 0
    page.set_viewport_size(PHONE)
    for path in (
        f"/admin/articles/{second}",
        "/admin/crawl",
        "/admin/articles",
        f"/admin/brands/{uid}",
        "/admin/ingest-jobs",
        "/admin",
    ):
        page.goto(f"{console.url}{path}")
        assert horizontal_overflow(page) == 0, path
    screenshot(page, "admin-dashboard-phone", tmp_path)


def test_change_your_own_password(page: Page, console: Console) -> None:
    """A weak new password is refused beside its field; a strong one keeps this browser in."""
    console.user("pw", "admin")
    sign_in(page, console, "pw")
    page.get_by_role("link", name="pw").click()
    expect(page.locator("h1")).to_have_text("Your account")
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password").fill("password")
    page.get_by_role("button", name="Change password").click()
    expect(page.locator(".field__error")).to_contain_text("one of the 10,000 most common")
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password").fill("a fresh long passphrase")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Password changed; your other sessions ended.")).to_be_visible()
    page.goto(f"{console.url}/admin/users")
    expect(page.locator("h1")).to_have_text("Users")
    expect(page.get_by_role("link", name="pw")).to_be_visible()  # the new session holds
