"""Property tests: whatever a page holds, the Vogue parsers answer or raise VogueParseError."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rk.core.errors import ShowSkipped
from rk.core.wire import ShowIngest
from rk.plugins.vogue.parse import (
    ParsedShow,
    VogueParseError,
    parse_designer_shows,
    parse_designers,
    parse_show,
)

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
    ]
) | st.text(max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        ["gallery-collection", "Collection", "gallery-detail", "Details", "3", "/a.jpg"]
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
ITEM = st.fixed_dictionaries({"image": IMAGE}, optional={"lookNumber": SCALARS}) | JSON
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
            optional={"access": JSON, "runwayShowContent": JSON},
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
    for parser in (parse_designers, parse_designer_shows):
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
