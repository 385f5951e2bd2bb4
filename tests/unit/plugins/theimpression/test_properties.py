"""Property tests: whatever a page holds, The Impression parsers answer or raise their error."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from hypothesis import given, settings
from hypothesis import strategies as st

from rk.core.api.errors import ShowSkipped
from rk.core.api.wire import ShowIngest
from rk.plugins.theimpression.images import ImagePolicy
from rk.plugins.theimpression.parse import (
    ImpressionParseError,
    Post,
    parse_feed,
    parse_listing,
    parse_post_page,
    parse_rest_posts,
)
from rk.plugins.theimpression.show import post_to_show

URL = "https://s.test/street-style-x/"
POLICY = ImagePolicy(upload_hosts=frozenset({"s.test"}), cdn_hosts=frozenset({"img.s.test"}))
KEYS = st.sampled_from(
    ["link", "slug", "title", "rendered", "content", "date", "_embedded", "wp:term", "taxonomy"]
) | st.text(max_size=6)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["https://s.test/a/", "street-style", "category", "<img src=x>"])
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)
ATTRS = st.sampled_from(
    ["src", "data-src", "data-lazy-src", "srcset", "data-srcset", "width", "class"]
)
ATTR_VALUES = st.sampled_from(
    [
        "https://s.test/wp-content/uploads/a-683x1024.jpg",
        "https://s.test/wp-content/uploads/a-scaled.jpg 2x, /wp-content/uploads/b.jpg 10w",
        "https://img.s.test/ff/c.jpg",
        "avatar",
        "12",
        "data:image/gif;base64,AAAA",
    ]
) | st.text(max_size=30)
IMG = st.dictionaries(ATTRS, ATTR_VALUES, max_size=4).map(
    lambda attrs: (
        "<img "
        + " ".join(f'{k}="{escape(v, {chr(34): "&quot;"})}"' for k, v in attrs.items())
        + ">"
    )
)
BODY = st.lists(
    IMG | st.text(max_size=30) | st.just("<p>Photographer | A Name</p>"), max_size=6
).map("".join)

GOOD_BODY = BODY.map(lambda body: f'{body}<img src="https://s.test/wp-content/uploads/a.jpg">')
TERM = st.fixed_dictionaries(
    {"taxonomy": st.sampled_from(["category", "post_tag"]) | SCALARS, "name": SCALARS}
)
REST_POST = st.fixed_dictionaries(
    {
        "link": st.sampled_from(["https://s.test/street-style-a/", "https://s.test/b/"]) | SCALARS,
        "slug": SCALARS,
    },
    optional={
        "title": st.fixed_dictionaries({"rendered": SCALARS}) | JSON,
        "content": st.fixed_dictionaries({"rendered": GOOD_BODY}),
        "date": SCALARS,
        "_embedded": st.fixed_dictionaries({"wp:term": st.lists(st.lists(TERM | JSON))}) | JSON,
    },
)


def attempt(call: Callable[[], object], allowed: tuple[type[Exception], ...]) -> object:
    """The call's result, or the exception it raised when that is one of ``allowed``."""
    try:
        return call()
    except allowed as exc:
        return exc


def check_parsers(text: str) -> None:
    for parser in (parse_rest_posts, parse_feed, parse_listing):
        result = attempt(lambda parser=parser: parser(text, URL), (ImpressionParseError,))
        assert isinstance(result, list | ImpressionParseError)
        if isinstance(result, Exception):
            assert "\n" not in str(result)
    page = attempt(lambda: parse_post_page(text, URL), (ImpressionParseError,))
    assert isinstance(page, Post | ImpressionParseError)
    if isinstance(page, Post):
        check_show(page)


def check_show(post: Post) -> None:
    result = attempt(lambda: post_to_show(post, POLICY), (ShowSkipped, ImpressionParseError))
    if isinstance(result, ShowIngest):
        assert result.looks
        assert [look.number for look in result.looks] == list(range(1, len(result.looks) + 1))
    else:
        assert isinstance(result, ShowSkipped | ImpressionParseError)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(text: str) -> None:
    check_parsers(text)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_arbitrary_json(value: Any) -> None:
    check_parsers(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=20), st.text(max_size=40), BODY), max_size=3))
def test_rss_with_arbitrary_items(items: list[tuple[str, str, str]]) -> None:
    entries = "".join(
        f"<item><title>{escape(t)}</title><link>https://s.test/{escape(s)}/</link>"
        f"<category>{escape(t)}</category><content:encoded>{escape(b)}</content:encoded></item>"
        for t, s, b in items
    )
    feed = f'<rss xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>{entries}</channel></rss>'
    result = attempt(lambda: parse_feed(feed, URL), (ImpressionParseError,))
    if isinstance(result, list):
        for post in result:
            check_show(post)


@settings(max_examples=300, deadline=None)
@given(BODY, st.sampled_from(["street-style-paris", "news-item"]))
def test_arbitrary_post_bodies(body: str, slug: str) -> None:
    page = (
        '<html><body><article><h1 class="entry-title">T</h1>'
        f'<div class="entry-content">{body}</div></article>'
    )
    check_parsers(page)
    check_show(Post(url=f"https://s.test/{slug}/", slug=slug, content=body))


@settings(max_examples=200, deadline=None)
@given(st.lists(REST_POST | JSON, max_size=4))
def test_rest_shaped_pages_with_arbitrary_fields(items: list[Any]) -> None:
    result = attempt(lambda: parse_rest_posts(json.dumps(items), URL), (ImpressionParseError,))
    assert isinstance(result, list)
    for post in result:
        check_show(post)
