"""What a hostile source page or another origin can do in a browser, in headless Chromium.

A ``javascript:`` source link stored before the wire refused it is never clickable and
never runs, on the public show and image pages or the console's review page; a page on
another origin (same site: 127.0.0.1 on another port, so SameSite=Lax cookies travel)
cannot frame the console; and no main page of the site or the console trips its own
content security policy, with every image still shown.
"""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, expect

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.console.accounts.users import create_user
from rk.server.platform.db.database import Database
from rk.server.platform.db.tables import Article
from tests.integration.public.archive import Archive, seed
from tests.integration.spider.procs import Backend
from tests.support.served import served_archive

PASSWORD = "a long enough password"
HOSTILE = "  JaVaScRiPt:window.__pwned=1;alert(document.domain)"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """``rk serve-backend`` with the test archive and one show whose source link is hostile."""

    async def fill(storage: Storage, _: RkPluginManager, __: Database) -> Archive:
        archive = await seed(storage)
        hostile = archive.shows["acne-fw24"]
        await Article.update({Article.url: HOSTILE}).where(Article.id == hostile)
        await create_user("ada", PASSWORD, "admin")
        return archive

    with served_archive(tmp_path_factory.mktemp("security") / "backend", fill) as served:
        yield served


def sign_in(page: Page, backend: Backend) -> None:
    page.goto(f"{backend.url}/admin/sign-in")
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{backend.url}/admin")


def test_a_stored_javascript_link_is_text_and_never_runs(
    page: Page, site: tuple[Backend, Archive]
) -> None:
    backend, archive = site
    dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    sign_in(page, backend)
    show = archive.shows["acne-fw24"]
    pages = {
        f"/shows/{show}": page.locator(".show-head"),
        f"/images/{archive.images['acne-fw24'][0]}": page.locator(".facts"),
        f"/admin/articles/{show}": page.locator(".review__key"),
    }
    for path, where in pages.items():
        page.goto(f"{backend.url}{path}")
        expect(page.locator('[href*="script:" i]')).to_have_count(0)
        label = where.get_by_text(re.compile("Vogue|source page")).first
        expect(label).to_be_visible()
        expect(where.locator("a", has_text=re.compile("Vogue|source page"))).to_have_count(0)
        label.click()
        assert page.evaluate("window.__pwned") is None, path
        assert page.url == f"{backend.url}{path}"
    assert dialogs == []


def test_another_origin_cannot_frame_the_console(
    browser: Browser, site: tuple[Backend, Archive]
) -> None:
    backend, archive = site
    target = f"{backend.url}/admin/articles/{archive.shows['pending']}"
    framing = f'<!doctype html><title>decoy</title><iframe src="{target}"></iframe>'.encode()

    class Decoy(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(framing)))
            self.end_headers()
            self.wfile.write(framing)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

    decoy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Decoy)
    threading.Thread(target=decoy.serve_forever, daemon=True).start()
    context = browser.new_context()
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    try:
        sign_in(page, backend)
        page.goto(target)
        expect(page.get_by_role("button", name="Approve")).to_be_visible()
        page.goto(f"http://127.0.0.1:{decoy.server_address[1]}/")
        page.wait_for_load_state("load")
        frame = page.frames[1]
        assert frame.url != target or frame.locator("button").count() == 0
        assert "Approve" not in frame.content()
        assert any("frame-ancestors" in text or "X-Frame-Options" in text for text in messages)
    finally:
        context.close()
        decoy.shutdown()
        decoy.server_close()


def test_main_pages_keep_to_their_policy(
    page: Page, site: tuple[Backend, Archive], tmp_path: Path
) -> None:
    backend, archive = site
    violations: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", watch)
    show = archive.shows["acne-ss25"]
    image = archive.images["acne-ss25"][0]
    uid = archive.brands["Acne Studios"]
    public = ["/", "/brands", f"/brands/{uid}", f"/shows/{show}", f"/images/{image}"]
    public += ["/search?q=coat", "/schema", "/no/such/page"]
    console = ["/admin", "/admin/articles", f"/admin/articles/{show}", "/admin/brands"]
    console += [f"/admin/brands/{uid}", "/admin/crawl", "/admin/ingest-jobs", "/admin/users"]
    console += ["/admin/audit", "/admin/articles/999999"]
    for path in ["/admin/sign-in", *public]:
        answer = page.goto(f"{backend.url}{path}")
        assert answer is not None
        assert "frame-ancestors 'none'" in answer.headers.get("content-security-policy", ""), path
    sign_in(page, backend)
    for path in console:
        answer = page.goto(f"{backend.url}{path}")
        assert answer is not None
        assert "script-src 'self'" in answer.headers.get("content-security-policy", ""), path
    page.goto(f"{backend.url}/shows/{show}")
    first = page.locator(".look-grid img").first
    expect(first).to_be_visible()
    assert page.evaluate("img => img.complete && img.naturalWidth > 0", first.element_handle())
    page.goto(f"{backend.url}/admin/articles/{show}")
    page.locator(".review-grid .tile").first.click()
    loupe = page.locator("[data-loupe-img]")
    expect(loupe).to_be_visible()
    page.wait_for_function("() => document.querySelector('[data-loupe-img]').naturalWidth > 0")
    assert violations == []
