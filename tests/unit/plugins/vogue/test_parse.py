"""Vogue page parsers on the synthetic site: A–Z, designer pages, show pages."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from rk.core.errors import ShowSkipped
from rk.core.wire import BrandRef, ShowIngest
from rk.plugins.vogue.parse import (
    VogueParseError,
    image_url,
    parse_designer_shows,
    parse_designers,
    parse_show,
    show_key,
    to_original,
)
from rk.plugins.vogue.state import Image, Rendition, gallery_items

Page = Callable[[str], tuple[str, str]]
AURELE_FW = "fashion-shows/fall-2031-ready-to-wear/maison-aurele"


def test_designer_index_lists_every_link_with_its_url_when_given(vogue_page: Page) -> None:
    designers = parse_designers(*vogue_page("fashion-shows/designers"))
    names = [d.name for d in designers]
    assert names == [
        "HALDEN & CO.",
        "KESTREL & VINE",
        "MAISON AURÈLE",
        "ODALYS NORTH",
        "PALOMA QUINTERO",
        "ZÉPHYRINE LOOM",
    ]
    by_name = {d.name: d.url for d in designers}
    assert by_name["HALDEN & CO."] == "/fashion-shows/designer/halden-company"
    assert by_name["KESTREL & VINE"] == ""


def test_designer_page_lists_shows_newest_first_with_absolute_urls(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/designer/maison-aurele")
    shows = parse_designer_shows(html, url)
    assert [s.title for s in shows] == [
        "Fall 2031 Ready-to-Wear",
        "Pre-Fall 2031",
        "Spring 2031 Ready-to-Wear",
    ]
    assert shows[0].url == "https://runway.test/fashion-shows/fall-2031-ready-to-wear/maison-aurele"
    assert [s.key for s in shows] == [
        "fall-2031-ready-to-wear/maison-aurele",
        "pre-fall-2031/maison-aurele",
        "spring-2031-ready-to-wear/maison-aurele",
    ]


def test_designer_without_shows_is_an_empty_list(vogue_page: Page) -> None:
    assert parse_designer_shows(*vogue_page("fashion-shows/designer/odalys-north")) == []


def test_big_show_keeps_looks_and_details_apart(vogue_page: Page) -> None:
    html, url = vogue_page(AURELE_FW)
    brand = BrandRef(uid="b7", name="Maison Aurèle")
    parsed = parse_show(html, url, hed="Fall 2031 Ready-to-Wear", brand=brand)
    show = parsed.show
    assert show.show_key == "fall-2031-ready-to-wear/maison-aurele"
    assert show.title == "Maison Aurèle Fall 2031 Ready-to-Wear"
    assert (show.season, show.city, show.date) == ("Fall 2031 Ready-to-Wear", "", "2031-03-04")
    assert show.designer == "Creative director: Inès Marlowe"
    assert show.author == "Harriet Vale, Jonas Ekdahl"
    assert show.brand == brand
    assert [look.number for look in show.looks] == list(range(1, 61))
    assert len(show.details) == 24
    assert all("-detail-" in d.url for d in show.details)
    assert not any("-detail-" in look.image.url for look in show.looks)
    assert not any("beauty" in i.url or "front-row" in i.url for i in show.images())
    assert show.looks[0].image.url.endswith(
        "/master/w_2560,c_limit/00001-maison-aurele-fall-2031-ready-to-wear-credit-gorunway.jpg"
    )
    assert show.details[23].url.endswith(
        "00024-maison-aurele-fall-2031-ready-to-wear-detail-credit-gorunway.jpg"
    )
    assert parsed.skipped_looks == parsed.skipped_details == []
    wire = msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest)
    assert wire == show


def test_season_comes_from_the_page_when_no_hed_is_given(vogue_page: Page) -> None:
    show = parse_show(*vogue_page(AURELE_FW)).show
    assert show.season == "Fall 2031 Ready-to-Wear"  # subHed with its <span> stripped


def test_largest_rendition_and_original_rewrite(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/spring-2031-ready-to-wear/maison-aurele")
    looks = parse_show(html, url).show.looks
    assert "/w_2560,c_limit/" in looks[0].image.url
    assert "/w_1600,c_limit/" in looks[1].image.url  # look 2 has no xxl
    assert "/w_640%2Cc_limit/" in looks[3].image.url  # look 4 has only md, comma encoded
    assert looks[6].number == 7  # lookNumber given as a JSON number
    originals = parse_show(html, url, original=True).show.looks
    assert all("/master/pass/" in look.image.url for look in originals)
    assert originals[3].image.url.endswith(
        "/pass/00004-maison-aurele-spring-2031-ready-to-wear-credit-gorunway.jpg"
    )


def test_looks_without_image_or_sources_are_skipped_and_counted(vogue_page: Page) -> None:
    parsed = parse_show(*vogue_page("fashion-shows/spring-2031-ready-to-wear/paloma-quintero"))
    assert parsed.skipped_looks == [3, 5, 6]
    assert [look.number for look in parsed.show.looks] == [1, 2, 4, 7, 8, 9, 10]


def test_paywalled_show_is_skipped(vogue_page: Page) -> None:
    with pytest.raises(ShowSkipped, match=r"content restricted \(subscriber-only\)"):
        parse_show(*vogue_page("fashion-shows/fall-2031-ready-to-wear/paloma-quintero"))


def test_city_prefixed_seasons_give_a_city(vogue_page: Page) -> None:
    cases = {
        "fashion-shows/copenhagen-fall-2031/kestrel-vine": "Copenhagen",
        "fashion-shows/sao-paolo-spring-2030/kestrel-vine": "São Paulo",
        "fashion-shows/tokyo-spring-2031/paloma-quintero": "Tokyo",
        "fashion-shows/spring-2031-menswear/kestrel-vine": "",
    }
    for path, city in cases.items():
        assert parse_show(*vogue_page(path)).show.city == city, path


def test_state_with_script_end_and_semicolons_in_strings(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/tokyo-spring-2031/paloma-quintero")
    assert "</script> and a standing ovation;" in html  # the page really has them in a string
    assert len(parse_show(html, url).show.looks) == 5


def test_positions_number_looks_without_look_numbers_and_odd_dates_pass_through(
    vogue_page: Page,
) -> None:
    show = parse_show(*vogue_page("fashion-shows/resort-2031/halden-company")).show
    assert [look.number for look in show.looks] == [1, 2, 3, 4, 5]
    assert show.date == "TBA"
    other = parse_show(*vogue_page("fashion-shows/spring-2031-ready-to-wear/maison-aurele")).show
    assert other.date == "2031-03-09"  # "March 9, 2031"


@pytest.mark.parametrize(
    ("html", "message"),
    [
        ("<html><body>no state here</body></html>", "no window.__PRELOADED_STATE__"),
        ('<script>window.__PRELOADED_STATE__ = {"transformed": {;</script>', "not valid JSON"),
        ("<script>window.__PRELOADED_STATE__ = [1, 2];</script>", "no window.__PRELOADED_STATE__"),
        (
            '<script>window.__PRELOADED_STATE__ = {"transformed": 3};</script>',
            "unexpected page state",
        ),
        (
            '<script>window.__PRELOADED_STATE__ = {"transformed": {}};</script>',
            "no runwayShowGalleries",
        ),
    ],
)
def test_broken_state_is_a_clear_parse_error_naming_the_url(html: str, message: str) -> None:
    url = "https://runway.test/fashion-shows/fall-2031-ready-to-wear/x"
    with pytest.raises(VogueParseError, match=message) as caught:
        parse_show(html, url)
    assert url in str(caught.value)
    assert "\n" not in str(caught.value)


def test_state_found_by_marker_not_position() -> None:
    state = '{"transformed":{"allRunwayDesigners":{"groupedLinks":[{"links":[{"text":"A"}]}]}}}'
    html = (
        "<script>var x = 'window.__PRELOADED_STATE__';</script>"
        "<script>if (window.__PRELOADED_STATE__ == null) {}</script>"
        f"<script>window.__PRELOADED_STATE__={state}</script>"
    )
    assert [d.name for d in parse_designers(html, "u")] == ["A"]


def test_show_keys_and_image_helpers() -> None:
    assert show_key("https://x/fashion-shows/fall-2031-ready-to-wear/aa/slideshow/collection") == (
        "fall-2031-ready-to-wear/aa"
    )
    assert show_key("https://x/fashion-shows/designer/aa") == ""
    assert show_key("https://x/news/aa/bb") == ""
    url = "https://assets.test/photos/0123456789abcdef01234567/4:3/w_1280,h_960,c_limit/a.jpg"
    assert to_original(url) == "https://assets.test/photos/0123456789abcdef01234567/4:3/pass/a.jpg"
    assert to_original("https://assets.test/other/a.jpg") == "https://assets.test/other/a.jpg"
    odd = Image(
        sources={
            "huge": Rendition(url="/a.jpg", width=9000),
            "tiny": Rendition(url="/b.jpg", width=10),
        }
    )
    assert image_url(odd, "https://x/p") == "https://x/a.jpg"
    assert (
        image_url(Image(sources={"md": Rendition(url="javascript:alert(1)")}), "https://x/p") == ""
    )
    assert (
        image_url(Image(sources={"md": None, "sm": Rendition(url=7)}), "https://x/p")
        == "https://x/7"
    )


def test_one_odd_item_does_not_sink_its_gallery() -> None:
    raw = msgspec.Raw(
        b'[{"lookNumber": "1", "image": "oops"}, null,'
        b' {"image": {"sources": {"md": {"url": "/a.jpg"}}}}]'
    )
    odd, empty, good = gallery_items(raw)
    assert (odd, empty) == (None, None)
    assert good is not None
    assert image_url(good.image, "https://x/p") == "https://x/a.jpg"
