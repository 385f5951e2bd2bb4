"""Moderators see the similarity scores and the model id on a public image page; visitors never
do, and neither the page cache, a 304 nor a forged cookie ever hands one's page to the other.

A real backend with the tiny CLIP serves the test archive; a moderator signs in through the
console's form in one browser context while a visitor browses in another.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.archive_site import archive_backend
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.test_accessibility import AXE, report, violations
from tests.integration.public.archive import Archive, seed
from tests.integration.spider.procs import RK, Backend, clean_env
from tests.support.skips import skip_or_fail

PASSWORD = "a moderator's long password"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive, str]]:
    """The test archive, embedded and placed, a moderator account, and the model id."""
    with archive_backend(tmp_path_factory.mktemp("moderator") / "backend", seed) as served:
        backend, archive = served
        made = subprocess.run(
            [
                *(RK, "admin", "create-user", "mona", "--role", "moderator", "--password-stdin"),
                *("--config", str(backend.config), "--data-dir", str(backend.data_dir)),
            ],
            input=PASSWORD + "\n",
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert made.returncode == 0, made.stderr
        image = archive.images["acne-ss25"][0]
        model = httpx.get(f"{backend.url}/api/images/{image}").json()["model"]
        assert model
        yield backend, archive, model


def signed_in(browser: Browser, backend: Backend, viewport: dict[str, int]) -> BrowserContext:
    """A browser context where the moderator has signed in through the console's form."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{backend.url}/admin/sign-in")
    page.get_by_label("User name").fill("mona")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{backend.url}/admin")
    page.close()
    return context


def visit(page: Page, url: str) -> tuple[dict[str, str], int, int, str]:
    """Open ``url``: its answer's headers, the similar tiles, the scores shown, the page text."""
    answer = page.goto(url)
    assert answer is not None
    assert answer.status == 200
    tiles = page.locator(".similar-rail .tile, .similar .tile").count()
    scores = page.locator("[data-score]").count()
    return answer.headers, tiles, scores, page.locator("body").inner_text()


def test_a_moderator_sees_scores_and_the_model_a_visitor_never_does(
    browser: Browser, site: tuple[Backend, Archive, str], tmp_path: Path
) -> None:
    backend, archive, model = site
    url = f"{backend.url}/images/{archive.images['acne-ss25'][0]}"
    visitor = browser.new_context(viewport=DESKTOP)
    moderator = signed_in(browser, backend, DESKTOP)
    try:
        seen = visitor.new_page()
        headers, tiles, scores, text = visit(seen, url)  # the visitor's page is now cached
        assert tiles >= 2
        assert scores == 0
        assert model not in text
        assert "similarity" not in text.lower()
        assert headers["cache-control"].startswith("public")
        assert "cookie" in headers["vary"].lower()

        mod = moderator.new_page()
        headers, mod_tiles, scores, text = visit(mod, url)
        assert mod_tiles == tiles
        assert scores == tiles
        assert model in text
        for score in mod.locator("[data-score]").all_inner_texts():
            assert 0.0 < float(score.split()[-1]) <= 1.0, score
        assert headers["cache-control"] == "private, no-store"
        if not AXE.exists():
            skip_or_fail(f"{AXE} missing: npm install --prefix tests/browser/axe")
        found = violations(mod, AXE.read_text())
        assert not found, report({"moderator's image page": found})
        screenshot(mod, "moderator-image-desktop", tmp_path)

        again = mod.reload()  # a reload revalidates: still the moderator's page, never a 304
        assert again is not None
        assert again.status == 200
        assert mod.locator("[data-score]").count() == tiles

        headers, _, scores, text = visit(seen, url)  # after the moderator: still no scores
        assert scores == 0
        assert model not in text
    finally:
        visitor.close()
        moderator.close()


def test_a_forged_or_ended_session_shows_the_visitors_page(
    browser: Browser, site: tuple[Backend, Archive, str]
) -> None:
    backend, archive, model = site
    url = f"{backend.url}/images/{archive.images['acne-ss25'][1]}"
    forged = browser.new_context(viewport=PHONE)
    forged.add_cookies([{"name": "rk_session", "value": "made-up", "url": backend.url}])
    try:
        headers, tiles, scores, text = visit(forged.new_page(), url)
        assert tiles >= 2
        assert scores == 0
        assert model not in text
        assert headers["cache-control"].startswith("public")
    finally:
        forged.close()
    moderator = signed_in(browser, backend, PHONE)
    try:
        page = moderator.new_page()
        _, tiles, scores, text = visit(page, url)
        assert scores == tiles >= 2
        assert model in text
        page.goto(f"{backend.url}/admin")
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(f"{backend.url}/admin/sign-in")
        _, _, scores, text = visit(page, url)
        assert scores == 0
        assert model not in text
    finally:
        moderator.close()
