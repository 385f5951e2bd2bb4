"""The moderation console in headless Chromium against a real ``rk serve-backend``.

A moderator signs in (a wrong password is refused, the sixth attempt is rate-limited),
an admin adds a brand and queues its crawl, a signed spider-less ingest brings in pending
articles, one is reviewed with the keyboard and approved, another rejected, a third
deleted (its media cleaned); a moderator is refused an admin page, a signed-out visitor
is sent to sign in, and a form posted without its CSRF token is refused.
"""

from __future__ import annotations

import hashlib
import http.server
import re
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Page, expect

from rk.core.api.signing import signed_headers
from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest
from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.integration.public.archive import photo
from tests.integration.spider.procs import RK, Backend, clean_env

SECRET = "browser-admin-secret"
PASSWORD = "a long enough password"


class Console:
    """The backend under test, its image server and its SQLite file."""

    def __init__(self, backend: Backend, images: str) -> None:
        self.backend = backend
        self.url = backend.url
        self.images = images

    def db(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.backend.data_dir / 'rk.sqlite3'}?mode=ro", uri=True)

    def one(self, sql: str, *args: Any) -> Any:
        with self.db() as db:
            row = db.execute(sql, args).fetchone()
        return row[0] if row else None

    def user(self, name: str, role: str) -> None:
        done = subprocess.run(
            [
                RK,
                "admin",
                "create-user",
                name,
                "--role",
                role,
                "--password-stdin",
                "--config",
                str(self.backend.config),
                "--data-dir",
                str(self.backend.data_dir),
            ],
            input=PASSWORD + "\n",
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def ingest(self, brand: tuple[str, str], key: str, looks: int) -> int:
        """POST a signed show (images on the local image server); the job id."""
        show = ShowIngest(
            source="vogue",
            show_key=key,
            title=f"{brand[1]} {key}",
            brand=BrandRef(uid=brand[0], name=brand[1]),
            season="Spring 2025 Ready-to-Wear",
            city="Paris",
            date="2025-09-30",
            url=f"https://www.vogue.com/fashion-shows/{key}",
            looks=[
                Look(number=n, image=ImageRef(url=f"{self.images}/{key}/{n}.jpg"))
                for n in range(1, looks + 1)
            ],
        )
        body = msgspec.json.encode(show)
        path = "/admin/internal/ingest"
        headers = signed_headers(SECRET, "POST", path, body, None)
        answer = httpx.post(
            f"{self.url}{path}",
            content=body,
            headers={**headers, "content-type": "application/json"},
        )
        assert answer.status_code == 202, answer.text
        return int(answer.json()["job_id"])

    def wait(self, sql: str, *args: Any, timeout_s: float = 60) -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.one(sql, *args)
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"not true within {timeout_s} s: {sql} {args}")


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A backend with an admin and a moderator, and a server of generated JPEGs."""

    class Images(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = photo(int(hashlib.sha1(self.path.encode()).hexdigest()[:6], 16))
            self.send_response(200)
            self.send_header("content-type", "image/jpeg")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Images)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = tmp_path_factory.mktemp("admin") / "backend"
    backend = Backend(
        root,
        f"sqlite:///{root / 'data' / 'rk.sqlite3'}",
        allow=[f"127.0.0.1:{server.server_address[1]}"],
        ingest={"secret": SECRET},
    ).start()
    try:
        found = Console(backend, f"http://127.0.0.1:{server.server_address[1]}")
        found.user("ada", "admin")
        found.user("mo", "moderator")
        found.user("rl", "moderator")
        yield found
    finally:
        backend.stop()
        server.shutdown()


@pytest.fixture(autouse=True)
def patient_expect() -> Iterator[None]:
    """Wait up to 20 s for a page condition: the shared cores are often loaded (a failed
    run of the full browser suite at load average 10 passed alone)."""
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=5_000)


def sign_in(page: Page, console: Console, name: str, password: str = PASSWORD) -> None:
    page.goto(f"{console.url}/admin/sign-in")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


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
    # Two ingest workers: ids follow whichever job finished first, so name them by id.
    with console.db() as db:
        third, second, first = (
            row[0] for row in db.execute("SELECT id FROM articles ORDER BY id DESC")
        )

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

    page.keyboard.press("r")
    expect(page.locator(".flash--success")).to_have_text("Rejected 1 article")
    page.goto(f"{console.url}/admin/articles?tab=pending")
    expect(page.locator(f'tbody a[href="/admin/articles/{second}"]')).to_have_count(0)
    expect(page.locator(f'tbody a[href="/admin/articles/{first}"]')).to_have_count(2)
    page.goto(f"{console.url}/admin/articles/{third}")
    expect(page.locator(".audit-list li")).to_contain_text("ada")

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
