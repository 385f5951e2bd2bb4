"""Tags on the review page in Chromium (issue 30), at 1280 and 390 px: a moderator sees each
look's tags with their scores, removes one with its × button and gets the page back with the
tag struck through, adds one from the vocabulary; axe-core finds no violation; screenshots
kept (``docs/screenshots/tags-review-1280.png`` is the desktop one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.browser.console_site import Console, running_console, sign_in
from tests.browser.test_accessibility import AXE, violations
from tests.support.skips import skip_or_fail

TAGS: list[tuple[int, str, float]] = [
    (1, "dress", 0.312),
    (1, "a-line", 0.274),
    (1, "v-neck", 0.251),
    (1, "floral", 0.266),
    (2, "coat", 0.305),
    (2, "plaid", 0.281),
    (3, "jumpsuit", 0.29),
    (3, "leather", 0.262),
    (3, "symmetrical", 0.243),
]
"""Tags as the tagging job writes them, by look number: (look, tag, cosine score); look 2
also has a tag a moderator added (no score)."""


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    yield from running_console(tmp_path_factory)


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.exists():
        skip_or_fail(f"{AXE} missing: npm install --prefix tests/browser/axe")
    return AXE.read_text()


def tagged_show(console: Console) -> int:
    """A pending show of four looks, the first three tagged; its article id."""
    brand = console.brand("Erdem")
    job = console.ingest(brand, "s25/erdem-tags", 4)
    console.wait("SELECT 1 FROM ingest_jobs WHERE id = ? AND status = 'done'", job)
    article = int(console.one("SELECT id FROM articles WHERE show_key = 's25/erdem-tags'"))
    ids = {
        look: int(
            console.one(
                "SELECT id FROM images WHERE article_id = ? AND role = 'look' AND position = ?",
                article,
                look,
            )
        )
        for look in (1, 2, 3)
    }
    console.write(
        "INSERT INTO image_tags (image_id, tag, score, state, model, vocabulary, computed_at)"
        " VALUES (?, ?, ?, ?, 'clip-vit-b32', 'v', 0)",
        [(ids[look], tag, score, "auto") for look, tag, score in TAGS]
        + [(ids[2], "shearling", None, "confirmed")],
    )
    return article


def test_a_moderator_removes_and_adds_tags_on_the_review_page(
    browser: Browser, console: Console, axe: str, tmp_path: Path
) -> None:
    article = tagged_show(console)
    for name, viewport in {"1280": DESKTOP, "390": PHONE}.items():
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        sign_in(page, console, "mo")
        expect(page).to_have_url(f"{console.url}/admin")
        page.goto(f"{console.url}/admin/articles/{article}")
        section = page.get_by_role("region", name="Tags")
        expect(section).to_be_visible()
        expect(section.locator(".tag", has_text="dress")).to_contain_text("0.31")
        assert horizontal_overflow(page) == 0
        assert violations(page, axe) == []
        if name == "1280":
            section.get_by_role("button", name="Remove floral from Look 1").click()
            expect(page.get_by_text("Removed tag floral.")).to_be_visible()
            removed = page.locator(".tag--removed", has_text="floral")
            expect(removed).to_be_visible()
            expect(removed.get_by_role("button", name="Restore floral on Look 1")).to_be_visible()
            page.get_by_label("Add a tag to Look 4").fill("cape")
            page.locator(".tag-row").nth(3).get_by_role("button", name="Add").click()
            expect(page.get_by_text("Added tag cape.")).to_be_visible()
            expect(page.locator(".tag--confirmed", has_text="cape")).to_be_visible()
            assert violations(page, axe) == []
            page.evaluate("window.scrollTo(0, 0)")
            shot = screenshot(page, "tags-review-1280", tmp_path)
            assert shot.stat().st_size > 10_000
        else:
            screenshot(page, "tags-review-390", tmp_path)
        context.close()
    removed = console.one(
        "SELECT COUNT(*) FROM image_tag_audit WHERE tag = 'floral' AND new_state = 'removed'"
    )
    assert removed == 1
