"""Each image names the smallest rendition that covers a thumbnail (``thumb_url``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rk.plugins.vogue.images import thumb_url
from rk.plugins.vogue.parse import parse_show
from rk.plugins.vogue.state import Image, Rendition

Page = Callable[[str], tuple[str, str]]
AURELE_FW = "fashion-shows/fall-2031-ready-to-wear/maison-aurele"


@pytest.mark.parametrize(
    ("thumb_size", "transform"),
    [(256, "/w_360,c_limit/"), (360, "/w_360,c_limit/"), (400, "/w_1024,c_limit/")],
)
def test_the_smallest_covering_rendition_of_every_image(
    vogue_page: Page, thumb_size: int, transform: str
) -> None:
    show = parse_show(*vogue_page(AURELE_FW), thumb_size=thumb_size).show
    refs = show.images()
    assert refs
    for ref in refs:
        assert ref.thumb_url is not None
        assert transform in ref.thumb_url
        assert "/w_2560,c_limit/" in ref.url
        assert ref.thumb_url.rsplit("/", 1)[1] == ref.url.rsplit("/", 1)[1]


def test_no_rendition_when_none_covers_or_none_is_asked(vogue_page: Page) -> None:
    assert all(ref.thumb_url is None for ref in parse_show(*vogue_page(AURELE_FW)).show.images())
    # xxl (2560) is the image itself: nothing smaller covers a 2000 px thumbnail.
    show = parse_show(*vogue_page(AURELE_FW), thumb_size=2000).show
    assert all(ref.thumb_url is None for ref in show.images())


def test_the_original_option_keeps_the_small_rendition(vogue_page: Page) -> None:
    show = parse_show(*vogue_page(AURELE_FW), original=True, thumb_size=256).show
    for ref in show.images():
        assert "/pass/" in ref.url
        assert ref.thumb_url is not None
        assert "/w_360,c_limit/" in ref.thumb_url


def cdn(width: int) -> str:
    return f"https://a.test/photos/x/master/w_{width},c_limit/l.jpg"


def test_a_height_the_page_gives_must_cover_too() -> None:
    wide = Image(
        sources={
            "sm": Rendition(url=cdn(360), width=360, height=240),
            "md": Rendition(url=cdn(640), width=640, height=427),
            "xxl": Rendition(url=cdn(2560), width=2560),
        }
    )
    assert thumb_url(wide, "https://a.test/", 256, cdn(2560)) == cdn(640)
    assert thumb_url(wide, "https://a.test/", 3000, cdn(2560)) is None
