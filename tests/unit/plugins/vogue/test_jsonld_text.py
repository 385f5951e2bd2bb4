"""The small readers under the show parser: JSON-LD, anchors and text, item numbers."""

from __future__ import annotations

import pytest

from rk.plugins.vogue.images import item_number, photo_id
from rk.plugins.vogue.jsonld import LdArticle, article, published
from rk.plugins.vogue.show import header
from rk.plugins.vogue.state import Item
from rk.plugins.vogue.text import anchor, clean, path_slugs


def test_article_is_the_first_article_of_a_list_or_the_object_itself() -> None:
    ld = [
        {"@type": "BreadcrumbList", "headline": "not this"},
        {
            "@type": ["Article", "Thing"],
            "headline": "A &amp; B Fall 2031 Collection",
            "datePublished": "2031-03-04T16:12:00.000Z",
            "author": [{"name": "Harriet Vale"}, {"name": "Harriet Vale"}, "Jonas Ekdahl", 7],
            "keywords": ["A & B", "Fall 2031", 3, ""],
        },
    ]
    found = article(ld)
    assert found.headline == "A & B Fall 2031 Collection"
    assert found.published == "2031-03-04T16:12:00+00:00"
    assert found.authors == ["Harriet Vale", "Jonas Ekdahl"]
    assert found.keywords == ["A & B", "Fall 2031", "3"]
    assert article(ld[1]) == found
    assert article({"@type": "Article", "keywords": "a, b ,c"}).keywords == ["a", "b", "c"]
    assert article({"@type": "Article", "author": {"name": "Solo"}}).authors == ["Solo"]
    for nothing in (None, [], "text", [{"@type": "WebPage"}], {"headline": "untyped"}):
        assert article(nothing) == LdArticle()


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("2011-09-23T12:00:00.000-04:00", "2011-09-23T12:00:00-04:00"),
        ("2031-03-04T16:12:00Z", "2031-03-04T16:12:00+00:00"),
        ("2031-03-04T16:12:00", "2031-03-04T16:12:00"),
        ("2031-03-04", "2031-03-04"),
        ("September 23, 2011", ""),
        ("", ""),
        ("2031-03-04T16:12:00" + "0" * 80, ""),
    ],
)
def test_published_keeps_the_offset(value: str, kept: str) -> None:
    assert published(value) == kept


def test_anchor_text_and_slugs() -> None:
    assert anchor('<a class="x" href="/fashion-shows/designer/kv">Kestrel &amp; Vine</a>') == (
        "/fashion-shows/designer/kv",
        "Kestrel & Vine",
    )
    assert anchor("<a href='/q?a=1&amp;b=2'><span>X</span></a>") == ("/q?a=1&b=2", "X")
    assert anchor("<A HREF=/fashion-shows/resort-2031>RESORT 2031</A>") == (
        "/fashion-shows/resort-2031",
        "RESORT 2031",
    )
    assert anchor("Plain text") is None
    assert clean("  <p>A&nbsp;&amp;\n<b>B</b></p> ") == "A & B"
    assert path_slugs("https://x/fashion-shows/designer/kv") == ["designer", "kv"]
    assert path_slugs("/news/x") == []
    assert path_slugs("http://[::1") == []


def test_header_reads_slugs_from_anchors_and_text_from_old_plain_headers() -> None:
    real = header(
        {
            "sectionHeader": {
                "hed": '<a href="/fashion-shows/designer/kestrel-vine">Kestrel &amp; Vine</a>',
                "subHed": '<a href="/fashion-shows/spring-2012-ready-to-wear">SPRING 2012</a>',
            }
        }
    )
    assert (real.designer_slug, real.designer_text) == ("kestrel-vine", "Kestrel & Vine")
    assert (real.season_slug, real.season_text) == ("spring-2012-ready-to-wear", "")
    old = header({"sectionHeader": {"hed": "Halden & Co.", "subHed": "<i>Resort</i> 2031"}})
    assert (old.designer_slug, old.designer_text) == ("", "Halden & Co.")
    assert (old.season_slug, old.season_text) == ("", "Resort 2031")
    assert header(None) == header({"sectionHeader": 5})


def test_item_numbers_per_role() -> None:
    detail = Item(url="/s/d/slideshow/details#7", caption="Detail Look 7")
    assert item_number(detail, "detail") == 7
    assert item_number(Item(caption="Detail Look 7"), "look") is None
    assert item_number(Item(caption="Detail Look 7"), "detail") == 7
    assert item_number(Item(caption="look 12"), "look") == 12
    assert item_number(Item(caption="Look 1234567"), "look") is None
    assert item_number(Item(url="/a#0", caption="", look_number="4"), "look") == 4
    assert item_number(Item(look_number=True), "look") is None
    assert item_number(None) is None


def test_photo_ids_come_from_cdn_paths() -> None:
    url = "https://assets.test/photos/0123456789ABCDEF01234567/master/pass/a.jpg"
    assert photo_id(url) == "0123456789abcdef01234567"
    assert photo_id("https://assets.test/photos/short/master/pass/a.jpg") == ""
