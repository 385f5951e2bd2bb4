"""Vogue page parsers on the synthetic site: A–Z, designer, season and show pages.

Most show pages have the real shape (sources.md §4); three keep the older shape and prove
the fallbacks (plain-text headers, ``lookNumber``, ``eventDate``, ``contributors``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import msgspec
import pytest

from rk.core.api.errors import ShowSkipped, SourceError
from rk.core.api.wire import BrandRef, ShowIngest
from rk.plugins.vogue.parse import (
    VogueParseError,
    image_url,
    parse_designer_shows,
    parse_designers,
    parse_season,
    parse_show,
    show_key,
    to_original,
)
from rk.plugins.vogue.state import Image, Rendition, gallery_items

Page = Callable[[str], tuple[str, str]]
AURELE_FW = "fashion-shows/fall-2031-ready-to-wear/maison-aurele"
REAL_SHAPE = [
    AURELE_FW,
    "fashion-shows/fall-2031-ready-to-wear/veyra-atelier",
    "fashion-shows/copenhagen-fall-2031/kestrel-vine",
    "fashion-shows/spring-2031-menswear/kestrel-vine",
    "fashion-shows/sao-paolo-spring-2030/kestrel-vine",
    "fashion-shows/spring-2031-ready-to-wear/halden-company",
    "fashion-shows/spring-2031-ready-to-wear/paloma-quintero",
]


def page_with(transformed: dict[str, object]) -> str:
    return f"<script>window.__PRELOADED_STATE__ = {json.dumps({'transformed': transformed})};"


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


def test_subscriber_only_designer_page_without_shows_is_an_error() -> None:
    url = "https://runway.test/fashion-shows/designer/odalys-north"
    content = {"name": "Odalys North", "designerCollections": []}
    hidden = page_with({"access": {"contentRestricted": True}, "runwayDesignerContent": content})
    with pytest.raises(SourceError, match="designer page is subscriber-only and lists no shows"):
        parse_designer_shows(hidden, url)
    assert parse_designer_shows(page_with({"runwayDesignerContent": content}), url) == []


def test_season_page_lists_every_show_with_its_designer_and_slug(vogue_page: Page) -> None:
    html, _ = vogue_page("fashion-shows/fall-2031-ready-to-wear/index")
    url = "https://runway.test/fashion-shows/fall-2031-ready-to-wear"
    shows = parse_season(html, url)
    assert [(s.designer, s.slug, s.key) for s in shows] == [
        ("Maison Aurèle", "maison-aurele", "fall-2031-ready-to-wear/maison-aurele"),
        ("Paloma Quintero", "paloma-quintero", "fall-2031-ready-to-wear/paloma-quintero"),
        ("Veyra Atelier", "veyra-atelier", "fall-2031-ready-to-wear/veyra-atelier"),
    ]
    assert shows[2].url == f"{url}/veyra-atelier"


def test_season_page_skips_non_show_links_and_repeats_and_cleans_names() -> None:
    links = [
        {"text": "Kestrel &amp; <b>Vine</b>", "url": "/fashion-shows/fall-2031-menswear/kv"},
        {"text": "Again", "url": "/fashion-shows/fall-2031-menswear/kv"},
        {"text": "A designer page", "url": "/fashion-shows/designer/kv"},
        {"text": "No url"},
        {"url": "/fashion-shows/fall-2031-menswear/nameless"},
    ]
    html = page_with({"runwaySeasonContent": {"allShows": [{"groupName": "K", "links": links}]}})
    shows = parse_season(html, "https://runway.test/fashion-shows/fall-2031-menswear")
    assert [(s.designer, s.slug) for s in shows] == [
        ("Kestrel & Vine", "kv"),
        ("nameless", "nameless"),
    ]
    with pytest.raises(VogueParseError, match="no runwaySeasonContent.allShows"):
        parse_season(page_with({"runwaySeasonContent": {}}), "https://runway.test/x")


def test_real_shape_show_reads_anchors_json_ld_and_galleries(vogue_page: Page) -> None:
    html, url = vogue_page(AURELE_FW)
    assert '"hed":"<a href=' in html.replace("\\u002F", "/")  # the page really has anchors
    assert "FALL 2031 READY-TO-WEAR" in html  # and the season in capitals
    brand = BrandRef(uid="b7", name="Maison Aurèle")
    parsed = parse_show(html, url, brand=brand)
    show = parsed.show
    assert show.show_key == "fall-2031-ready-to-wear/maison-aurele"
    assert show.title == "Maison Aurèle Fall 2031 Ready-to-Wear"
    assert (show.season, show.city) == ("Fall 2031 Ready-to-Wear", "")
    assert show.date == "2031-03-04T16:12:00-05:00"  # JSON-LD datePublished with its offset
    assert show.author == "Harriet Vale, Jonas Ekdahl"  # JSON-LD author[].name
    assert show.designer == ""  # no designersDek on the real page
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
    assert all(d.look is None for d in show.details)  # linking needs the slideshow page
    assert parsed.skipped_looks == parsed.skipped_details == []
    wire = msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest)
    assert wire == show


@pytest.mark.parametrize("path", REAL_SHAPE)
def test_season_is_never_the_capitalised_anchor_text(vogue_page: Page, path: str) -> None:
    show = parse_show(*vogue_page(path)).show
    assert show.season.upper() in vogue_page(path)[0]  # the anchor says it in capitals
    assert show.season != show.season.upper()
    assert show.season.upper() not in show.title


def test_without_json_ld_the_season_comes_from_its_slug_and_the_name_from_the_anchor(
    vogue_page: Page,
) -> None:
    html, url = vogue_page("fashion-shows/copenhagen-fall-2031/kestrel-vine")
    assert "head.jsonld" not in html
    assert "Kestrel &amp; Vine" in html  # the anchor text is escaped in the page
    show = parse_show(html, url).show
    assert show.title == "Kestrel & Vine Copenhagen Fall 2031"
    assert (show.season, show.city) == ("Copenhagen Fall 2031", "Copenhagen")
    assert (show.date, show.author) == ("2031-02-01", "")  # pubDate; no reviewer


def test_html_text_is_unescaped_and_stripped_everywhere() -> None:
    header = {
        "hed": '<a href="/fashion-shows/designer/kv">Kestrel &amp; <i>Vine</i></a>',
        "subHed": '<a href="/fashion-shows/fall-2031-menswear">FALL 2031 MENSWEAR</a>',
    }
    item = {
        "caption": "<em>Look</em>&nbsp;2",
        "image": {"sources": {"md": {"url": "/photos/a/master/w_1,c_limit/a.jpg"}}},
    }
    transformed = {
        "runwayShowContent": {"sectionHeader": header},
        "runwayShowGalleries": {"galleries": [{"id": "gallery-collection", "items": [item]}]},
        "head.jsonld": [
            {
                "@type": "Article",
                "author": {"name": "Sabine &amp; <b>Roux</b>"},
                "keywords": "Kestrel &amp; Vine, Fall 2031 Menswear, runway",
            }
        ],
    }
    url = "https://runway.test/fashion-shows/fall-2031-menswear/kv"
    show = parse_show(page_with(transformed), url).show
    assert show.title == "Kestrel & Vine Fall 2031 Menswear"
    assert show.author == "Sabine & Roux"
    assert [look.number for look in show.looks] == [2]
    del transformed["head.jsonld"]
    assert parse_show(page_with(transformed), url).show.title == (
        "Kestrel & Vine Fall 2031 Menswear"
    )


def test_look_numbers_from_url_fragment_then_caption_then_position(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/spring-2031-ready-to-wear/halden-company")
    looks = parse_show(html, url).show.looks
    # 3: caption "<em>Look</em>&nbsp;3"; 4: neither (position); 5: "#5" beats "Look 50".
    assert [look.number for look in looks] == [1, 2, 3, 4, 5, 6]
    assert looks[4].image.url.endswith(
        "/00005-halden-company-spring-2031-ready-to-wear-credit-gorunway.jpg"
    )


def test_fragments_number_looks_listed_out_of_order_and_repeats_fall_back_to_positions() -> None:
    def gallery(*fragments: str) -> list[dict[str, object]]:
        return [
            {
                "url": f"/fashion-shows/s/d/slideshow/collection{fragment}",
                "caption": "Look 99",
                "image": {"sources": {"sm": {"url": f"/photos/a/master/w_1,c_limit/{n}.jpg"}}},
            }
            for n, fragment in enumerate(fragments)
        ]

    url = "https://runway.test/fashion-shows/s/d"

    def numbers(items: list[dict[str, object]]) -> list[int]:
        galleries = {"galleries": [{"id": "gallery-collection", "items": items}]}
        return [
            look.number
            for look in parse_show(page_with({"runwayShowGalleries": galleries}), url).show.looks
        ]

    assert numbers(gallery("#3", "#1", "#2")) == [3, 1, 2]
    assert numbers(gallery("#2", "#2", "#5")) == [1, 2, 3]  # a repeat: positions for all
    assert numbers(gallery("#0", "#x", "")) == [1, 2, 3]  # all "Look 99": a repeat
    assert numbers(gallery("#0", "#4", "#7")) == [99, 4, 7]  # a bad fragment: the caption


def test_detail_counters_are_not_look_numbers(vogue_page: Page) -> None:
    html, url = vogue_page(AURELE_FW)
    assert "Detail Look 24" in html
    parsed = parse_show(html, url)
    assert [look.number for look in parsed.show.looks] == list(range(1, 61))
    state = json.loads(html.split("window.__PRELOADED_STATE__ = ")[1].split(";</script>")[0])
    galleries = state["transformed"]["runwayShowGalleries"]["galleries"]
    details = galleries[1]["items"]
    del details[4]["image"]  # "Detail Look 5" has no image: reported by its own counter
    state["transformed"]["runwayShowGalleries"]["galleries"] = [galleries[1]]
    parsed = parse_show(page_with(state["transformed"]), url)
    assert parsed.show.looks == []
    assert parsed.skipped_details == [5]
    assert len(parsed.show.details) == 23


def test_show_key_from_canonical_url_or_header_slugs_when_the_url_says_nothing(
    vogue_page: Page,
) -> None:
    html, _ = vogue_page("fashion-shows/spring-2031-menswear/kestrel-vine")
    show = parse_show(html, "https://runway.test/some/redirect").show
    assert show.show_key == "spring-2031-menswear/kestrel-vine"  # head.canonicalUrl
    header = {
        "hed": '<a href="/fashion-shows/designer/kv">KV</a>',
        "subHed": '<a href="/fashion-shows/resort-2032">RESORT 2032</a>',
    }
    galleries = {
        "galleries": [
            {"id": "gallery-collection", "items": [{"image": {"sources": {"md": {"url": "/a"}}}}]}
        ]
    }
    transformed = {"runwayShowContent": {"sectionHeader": header}, "runwayShowGalleries": galleries}
    show = parse_show(page_with(transformed), "https://runway.test/elsewhere").show
    assert (show.show_key, show.season) == ("resort-2032/kv", "Resort 2032")
    assert show.title == "KV Resort 2032"


def test_old_shape_largest_rendition_and_original_rewrite(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/spring-2031-ready-to-wear/maison-aurele")
    show = parse_show(html, url).show
    looks = show.looks
    assert "/w_2560,c_limit/" in looks[0].image.url
    assert "/w_1600,c_limit/" in looks[1].image.url  # look 2 has no xxl
    assert "/w_640%2Cc_limit/" in looks[3].image.url  # look 4 has only md, comma encoded
    assert looks[6].number == 7  # lookNumber given as a JSON number
    assert show.season == "Spring 2031 Ready-to-Wear"  # plain subHed with its <span> stripped
    assert show.designer == "Creative director: Inès Marlowe"
    assert show.author == "Harriet Vale, Jonas Ekdahl"  # contributors, no JSON-LD
    assert show.date == "2031-03-09"  # pubDate "March 9, 2031"
    originals = parse_show(html, url, original=True).show.looks
    assert all("/master/pass/" in look.image.url for look in originals)
    assert originals[3].image.url.endswith(
        "/pass/00004-maison-aurele-spring-2031-ready-to-wear-credit-gorunway.jpg"
    )


def test_real_shape_renditions_are_2560_wide_and_rewrite_to_pass(vogue_page: Page) -> None:
    html, url = vogue_page(AURELE_FW)
    assert '"width":1280' in html
    assert '"height"' not in html
    show = parse_show(html, url, original=True).show
    assert all("/master/pass/" in image.url for image in show.images())


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
    season = parse_show(*vogue_page("fashion-shows/sao-paolo-spring-2030/kestrel-vine")).show
    assert season.season == "São Paolo Spring 2030"  # JSON-LD keeps the accent


def test_state_with_script_end_and_semicolons_in_strings(vogue_page: Page) -> None:
    html, url = vogue_page("fashion-shows/tokyo-spring-2031/paloma-quintero")
    assert "</script> and a standing ovation;" in html  # the page really has them in a string
    assert len(parse_show(html, url).show.looks) == 5


def test_old_shape_positions_and_odd_dates_pass_through(vogue_page: Page) -> None:
    show = parse_show(*vogue_page("fashion-shows/resort-2031/halden-company")).show
    assert [look.number for look in show.looks] == [1, 2, 3, 4, 5]
    assert (show.date, show.title) == ("TBA", "Halden & Co. Resort 2031")


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
