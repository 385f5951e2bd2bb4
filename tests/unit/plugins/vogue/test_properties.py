"""Property tests: whatever a page holds, the Vogue parsers answer or raise VogueParseError.

The slideshow linker is held to more: it never adds, drops or changes an image, and every
link it makes is a look number or None.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rk.core.api.errors import ShowSkipped
from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.plugins.vogue.parse import (
    ParsedShow,
    VogueParseError,
    parse_designer_shows,
    parse_designers,
    parse_season,
    parse_show,
)
from rk.plugins.vogue.slideshow import link_details, parse_slideshow

URL = "https://runway.test/fashion-shows/fall-2031-ready-to-wear/maison-aurele"
# Keys rk reads, mixed with random ones, so generated states reach deep into the parsers.
KEYS = st.sampled_from(
    [
        "transformed",
        "access",
        "contentRestricted",
        "runwayShowContent",
        "runwayShowGalleries",
        "galleries",
        "id",
        "title",
        "items",
        "lookNumber",
        "image",
        "sources",
        "xxl",
        "md",
        "url",
        "width",
        "allRunwayDesigners",
        "groupedLinks",
        "links",
        "text",
        "runwayDesignerContent",
        "designerCollections",
        "hed",
        "brand",
        "sectionHeader",
        "subHed",
        "eventDate",
        "pubDate",
        "contributors",
        "author",
        "name",
        "caption",
        "head.jsonld",
        "head.canonicalUrl",
        "@type",
        "keywords",
        "headline",
        "datePublished",
        "runwaySeasonContent",
        "allShows",
        "contentType",
        "details",
        "modelName",
    ]
) | st.text(max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        [
            *("gallery-collection", "Collection", "gallery-detail", "Details", "3", "/a.jpg"),
            *("Article", "runwaymoment", "Look 2", "Detail Look 2", "/s/d/slideshow/collection#4"),
            '<a href="/fashion-shows/designer/x">X &amp; Y</a>',
            "2031-03-04T16:12:00-05:00",
            "/photos/0123456789abcdef01234567/master/w_1,c_limit/a.jpg",
        ]
    )
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)

URLS = (
    st.sampled_from(["/photos/0a1b/master/w_640,c_limit/x.jpg", "https://a.test/y.jpg", ""])
    | st.text(max_size=20).map(lambda t: f"/p/{t}")
    | SCALARS
)
RENDITION_KEYS = st.sampled_from(["sm", "md", "lg", "xl", "xxl", "huge"])
RENDITION = st.fixed_dictionaries({"url": URLS}, optional={"width": SCALARS})
IMAGE = st.fixed_dictionaries(
    {"sources": st.dictionaries(RENDITION_KEYS, RENDITION, min_size=1, max_size=4)}
)
ITEM = (
    st.fixed_dictionaries(
        {"image": IMAGE}, optional={"lookNumber": SCALARS, "caption": SCALARS, "url": SCALARS}
    )
    | JSON
)
GALLERY = st.fixed_dictionaries(
    {"id": st.sampled_from(["gallery-collection", "gallery-detail", "gallery-beauty"])},
    optional={"title": SCALARS, "items": st.lists(ITEM, min_size=1, max_size=6)},
)
SHOW_STATE = st.fixed_dictionaries(
    {
        "transformed": st.fixed_dictionaries(
            {
                "runwayShowGalleries": st.fixed_dictionaries(
                    {"galleries": st.lists(GALLERY, max_size=3)}
                )
            },
            optional={"access": JSON, "runwayShowContent": JSON, "head.jsonld": JSON},
        )
    }
)


def page(state: Any) -> str:
    blob = json.dumps(state)
    return f"<html><script>window.__PRELOADED_STATE__ = {blob};</script></html>"


def attempt(call: Callable[[], object], allowed: tuple[type[Exception], ...]) -> object:
    """The call's result, or the exception it raised when that is one of ``allowed``."""
    try:
        return call()
    except allowed as exc:
        return exc


def check_all(html: str) -> None:
    for parser in (parse_designers, parse_designer_shows, parse_season):
        result = attempt(lambda parser=parser: parser(html, URL), (VogueParseError,))
        assert isinstance(result, list | VogueParseError)
    result = attempt(lambda: parse_show(html, URL, original=True), (VogueParseError, ShowSkipped))
    if isinstance(result, Exception):
        assert "\n" not in str(result)
    else:
        assert isinstance(result, ParsedShow)
        assert isinstance(result.show, ShowIngest)
        assert result.show.images()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(html: str) -> None:
    check_all(html)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_after_the_marker(tail: str) -> None:
    check_all(f"<script>window.__PRELOADED_STATE__ = {tail}</script>")


@settings(max_examples=500, deadline=None)
@given(JSON)
def test_arbitrary_json_in_the_state(state: Any) -> None:
    check_all(page(state))


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_arbitrary_json_under_transformed(inner: Any) -> None:
    check_all(page({"transformed": inner}))
    check_all(page({"transformed": {"runwayShowGalleries": {"galleries": inner}}}))


@settings(max_examples=500, deadline=None)
@given(SHOW_STATE)
def test_show_shaped_state_with_arbitrary_leaves(state: Any) -> None:
    check_all(page(state))


SHOW = ShowIngest(
    source="vogue",
    kind="runway",
    show_key="s/d",
    title="t",
    looks=[
        Look(number=n, image=ImageRef(url=f"https://c.test/photos/{n:024x}/master/pass/l.jpg"))
        for n in (1, 2, 4)
    ],
    details=[
        ImageRef(url=f"https://c.test/photos/{n:024x}/master/pass/d.jpg") for n in (17, 18, 19)
    ],
)
MOMENT = st.fixed_dictionaries(
    {"contentType": st.just("runwaymoment")},
    optional={
        "image": st.fixed_dictionaries({"id": st.sampled_from([f"{n:024x}" for n in (1, 2, 4)])})
        | JSON,
        "details": st.lists(
            st.fixed_dictionaries({"id": st.sampled_from([f"{n:024x}" for n in (17, 18, 19)])})
            | JSON,
            max_size=3,
        ),
        "modelName": SCALARS,
        "caption": SCALARS,
        "url": SCALARS,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        MOMENT | SCALARS,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
        max_leaves=20,
    )
)
def test_slideshow_links_never_change_the_images(state: Any) -> None:
    result = attempt(lambda: parse_slideshow(page(state), URL), (VogueParseError,))
    if isinstance(result, VogueParseError):
        assert "\n" not in str(result)
        return
    assert isinstance(result, list)
    linked = link_details(SHOW, result)
    show = linked.show
    assert [look.image for look in show.looks] == [look.image for look in SHOW.looks]
    assert [look.number for look in show.looks] == [1, 2, 4]
    assert [d.url for d in show.details] == [d.url for d in SHOW.details]
    assert all(d.look is None or 1 <= d.look <= 100_000 for d in show.details)
    assert all(len(look.model_name) <= 200 for look in show.looks)
    assert msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest) == show
