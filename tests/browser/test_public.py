"""The public site in headless Chromium: a visitor browses, filters, steps through looks with
the keyboard, by swipe and full screen, follows similar looks (one in view without
scrolling), searches by words and by a photo at a URL that reloads, browses seasons,
cannot reach an unpublished show by URL; and the same pages work with JavaScript off."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.archive_site import archive_backend
from tests.browser.conftest import PHONE, horizontal_overflow, screenshot
from tests.integration.public.archive import Archive, seed
from tests.integration.spider.procs import Backend

SS25 = "Spring 2025 Ready-to-Wear"
SWIPE = """([from, to]) => {
    const frame = document.querySelector('.photo__frame');
    const at = x => new Touch({identifier: 1, target: frame, clientX: x, clientY: 300});
    const send = (type, key, x) => frame.dispatchEvent(
        new TouchEvent(type, {[key]: [at(x)], bubbles: true}));
    send('touchstart', 'touches', from);
    send('touchend', 'changedTouches', to);
}"""
"""A finger's horizontal swipe across the photo, from x ``from`` to x ``to``."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive]]:
    """``rk serve-backend`` with the tiny CLIP, the test archive seeded and embedded."""
    with archive_backend(tmp_path_factory.mktemp("public") / "backend", seed) as served:
        yield served


def test_a_visitor_browses_filters_steps_and_searches(
    page: Page, site: tuple[Backend, Archive], tmp_path: Path
) -> None:
    backend, archive = site
    page.goto(f"{backend.url}/")
    expect(page.locator("h1")).to_have_text("Shows")
    expect(page.locator(".show-card")).to_have_count(6)
    page.locator(".filters a", has_text="Acne Studios").click()
    expect(page).to_have_url(re.compile(r"brand="))
    expect(page.locator(".show-card")).to_have_count(2)
    page.locator(".filters a", has_text=SS25).click()
    expect(page).to_have_url(re.compile(r"brand=.*season=Spring"))
    expect(page.locator(".show-card")).to_have_count(1)
    expect(page.locator(".active-filters .chip")).to_have_count(3)
    page.locator(".show-card").first.click()
    expect(page).to_have_url(f"{backend.url}/shows/{archive.shows['acne-ss25']}")
    expect(page.locator(".show-head h1")).to_have_text("Acne Studios")
    expect(page.locator(".look-grid .tile")).to_have_count(7)
    page.locator(".look-grid .tile").first.click()
    looks = archive.images["acne-ss25"]
    expect(page).to_have_url(f"{backend.url}/images/{looks[0]}")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{backend.url}/images/{looks[1]}")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{backend.url}/images/{looks[2]}")
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(f"{backend.url}/images/{looks[1]}")
    expect(page.locator(".photo__position")).to_have_text("Look 2 of 5")
    expect(page.locator('.filmstrip__frame[aria-current="true"]')).to_have_attribute(
        "href", f"/images/{looks[1]}"
    )
    similar = page.locator(".similar .tile")
    expect(similar.first).to_be_visible()
    rail = page.locator(".similar-rail .tile").first
    expect(rail).to_be_in_viewport()
    box = rail.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= 900, f"the first similar look ends below the fold: {box}"
    expect(page.locator(".tile__score")).to_have_count(0)
    assert "clip" not in page.locator("main").inner_text().lower(), "visitors see no model id"
    target = similar.first.get_attribute("href")
    similar.first.click()
    expect(page).to_have_url(f"{backend.url}{target}")
    page.locator(".header-search input").fill("red tartan coat")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/search\?q=red\+tartan\+coat"))
    expect(page.locator("#results")).to_contain_text("red tartan coat")
    expect(page.locator(".grid .tile").first).to_be_visible()
    picture = archive.pictures[archive.images["aurele-ss25"][0]]
    page.set_input_files(
        "#f-image", files=[{"name": "look.jpg", "mimeType": "image/jpeg", "buffer": picture}]
    )
    page.locator(".search-box__picture button").click()
    expect(page).to_have_url(re.compile(r"/search\?photo=[0-9a-f]{40}$"))
    expect(page.locator("#results")).to_contain_text("Looks like your photo")
    expect(page.locator(".search-from img")).to_have_js_property("complete", True)
    assert page.locator(".search-from img").evaluate("img => img.naturalWidth") > 0
    first = page.locator(".grid .tile").first
    expect(first).to_have_attribute("href", f"/images/{archive.images['aurele-ss25'][0]}")
    page.reload()
    expect(first).to_have_attribute("href", f"/images/{archive.images['aurele-ss25'][0]}")
    for name in ("pending", "rejected", "deleted"):
        answer = page.goto(f"{backend.url}/shows/{archive.shows[name]}")
        assert answer is not None
        assert answer.status == 404
        expect(page.locator("h1")).to_have_text("Page not found")
        answer = page.goto(f"{backend.url}/images/{archive.images[name][0]}")
        assert answer is not None
        assert answer.status == 404
    screenshot(page, "public-not-found", tmp_path)


def test_the_site_works_without_javascript(browser: Browser, site: tuple[Backend, Archive]) -> None:
    backend, archive = site
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{backend.url}/")
        page.locator(".filters a", has_text="Street style").click()
        expect(page.locator(".show-card")).to_have_count(1)
        page.locator(".chip--clear").click()
        page.locator(".filters a", has_text="Paris").click()
        expect(page.locator(".show-card")).to_have_count(3)
        page.locator(".show-card").nth(1).click()
        page.locator(".look-grid .tile").first.click()
        page.locator("a[rel=next]").click()
        looks = archive.images["acne-ss25"]
        expect(page).to_have_url(f"{backend.url}/images/{looks[1]}")
        expect(page.locator(".filmstrip__frame")).to_have_count(5)
        expect(page.locator("a[data-fullscreen]")).to_have_attribute(
            "href", re.compile(r"/media/runway/[0-9a-f]{40}\.jpg")
        )
        page.locator("a", has_text="More like this").click()
        expect(page.locator("#results")).to_have_text("More like Acne Studios, look 2")
        page.locator("#f-q").fill("black boots")
        page.locator(".search-box__words button").click()
        expect(page.locator("#results")).to_contain_text("black boots")
        page.set_input_files(
            "#f-image",
            files=[{"name": "x.txt", "mimeType": "text/plain", "buffer": b"not a photo"}],
        )
        page.locator(".search-box__picture button").click()
        expect(page.locator("#e-image")).to_contain_text("not an image")
        page.goto(f"{backend.url}/seasons")
        page.locator("a", has_text=SS25).click()
        expect(page.locator("h1")).to_have_text(SS25)
        expect(page.locator(".show-card")).to_have_count(3)
    finally:
        context.close()


def test_the_viewer_steps_full_screen_and_by_swipe(
    browser: Browser, site: tuple[Backend, Archive]
) -> None:
    backend, archive = site
    looks = archive.images["acne-ss25"]
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{backend.url}/images/{looks[0]}")
        page.evaluate(SWIPE, [300, 100])
        expect(page).to_have_url(f"{backend.url}/images/{looks[1]}")
        page.evaluate(SWIPE, [100, 300])
        expect(page).to_have_url(f"{backend.url}/images/{looks[0]}")
        page.locator("[data-fullscreen]").click()
        page.wait_for_function("document.fullscreenElement?.matches('.photo__frame')")
        expect(page.locator(".photo__fullscreen-caption")).to_contain_text("Look 1 of 5")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(page.locator(".photo__fullscreen-caption")).to_contain_text("Look 3 of 5")
        expect(page).to_have_url(f"{backend.url}/images/{looks[2]}")
        assert page.evaluate("document.fullscreenElement !== null"), "stepping stays full screen"
        page.evaluate("document.exitFullscreen()")
        expect(page.locator(".photo__position")).to_have_text("Look 3 of 5")
    finally:
        context.close()


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_pages_fit_the_screen_and_size_their_images(
    page: Page, site: tuple[Backend, Archive], tmp_path: Path, width: str
) -> None:
    backend, archive = site
    if width == "phone":
        page.set_viewport_size(PHONE)
    pages = {
        "home": "/",
        "seasons": "/seasons",
        "season": "/seasons/spring-2025-ready-to-wear",
        "show": f"/shows/{archive.shows['acne-ss25']}",
        "image": f"/images/{archive.images['acne-ss25'][0]}",
        "cite": f"/images/{archive.images['acne-ss25'][0]}/cite",
        "contact-sheet": f"/contact-sheet?brand={archive.brands['Acne Studios']}",
        "search": "/search?q=green+dress",
        "brands": "/brands",
        "schema": "/schema",
    }
    for name, path in pages.items():
        page.goto(f"{backend.url}{path}")
        assert horizontal_overflow(page) == 0, f"{name} overflows at {width}"
        for img in page.locator("main img").all():
            assert img.get_attribute("alt"), f"{name}: an image without alt text"
            assert img.get_attribute("width")
            assert img.get_attribute("height")
        screenshot(page, f"public-{name}-{width}", tmp_path)
    page.goto(f"{backend.url}/shows/{archive.shows['acne-ss25']}")
    tiles = page.locator(".look-grid img")
    assert tiles.last.get_attribute("loading") == "lazy"
    assert "256w" in (tiles.first.get_attribute("srcset") or "")
