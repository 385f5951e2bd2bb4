"""The Impression parsers on the synthetic site: REST pages, RSS, listings and post pages."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

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

File = Callable[[str], str]
PARIS = "street-style-paris-fashion-week-spring-2031-day-1"
SLUGS = [
    PARIS,
    "street-style-copenhagen-fashion-week-fall-2031-day-2",
    "street-style-coachella-2031",
    "the-others-milan-best-collections-spring-2031",
    "street-style-london-fashion-week-spring-2031-day-3",
    "street-style-new-york-fashion-week-spring-2031-day-4",
    "street-style-tokyo-fashion-week-fall-2031",
]


def rest_posts(site_file: File) -> list[Post]:
    url = "https://street.test/wp-json/wp/v2/posts"
    return [p for n in (1, 2) for p in parse_rest_posts(site_file(f"wp-json/posts-{n}.json"), url)]


def test_rest_pages_give_posts_with_body_and_category_names(site_file: File) -> None:
    posts = rest_posts(site_file)
    assert [p.slug for p in posts] == SLUGS
    first = posts[0]
    assert first.url == f"https://street.test/{PARIS}/"
    assert first.title == "Street Style: Paris Fashion Week Spring 2031, Day 1"  # &nbsp; decoded
    assert first.date == "2030-10-01"
    assert first.categories == ("Street Style", "Paris Fashion Week")
    assert "wp-block-image" in first.content


def test_feed_gives_the_newest_posts_with_content(site_file: File) -> None:
    posts = parse_feed(site_file("feed/index.xml"), "https://street.test/feed/")
    assert [p.slug for p in posts] == SLUGS[:5]
    assert posts[0].date == "2030-10-01"  # pubDate in GMT, same day
    assert posts[0].categories == ("Street Style", "Paris Fashion Week", "Spring 2031")
    assert "wp-block-image" in posts[0].content


def test_listing_pages_give_post_permalinks_only(site_file: File) -> None:
    assert parse_listing(site_file("index.html"), "https://street.test/") == [
        f"https://street.test/{slug}/" for slug in SLUGS[:3]
    ]
    assert parse_listing(site_file("page/3/index.html"), "https://street.test/page/3/") == [
        f"https://street.test/{SLUGS[6]}/"
    ]


def test_every_route_to_a_post_gives_the_same_show(site_file: File, policy: ImagePolicy) -> None:
    feed = {p.url: p for p in parse_feed(site_file("feed/index.xml"), "https://street.test/feed/")}
    shown = 0
    for post in rest_posts(site_file):
        page = parse_post_page(site_file(f"{post.slug}/index.html"), post.url)
        routes = [post, page] + ([feed[post.url]] if post.url in feed else [])
        outcomes = []
        for route in routes:
            try:
                outcomes.append(post_to_show(route, policy))
            except ShowSkipped as exc:
                outcomes.append(str(exc))
        assert all(outcome == outcomes[0] for outcome in outcomes), post.slug
        shown += isinstance(outcomes[0], ShowIngest)
    assert shown == 5


def test_paris_post_takes_the_largest_copies_and_ignores_furniture(
    site_file: File, policy: ImagePolicy
) -> None:
    show = post_to_show(
        parse_post_page(site_file(f"{PARIS}/index.html"), f"https://street.test/{PARIS}/"), policy
    )
    assert (show.source, show.show_key, show.brand, show.details) == (
        "theimpression",
        PARIS,
        None,
        [],
    )
    assert (show.city, show.season, show.date, show.author) == (
        "Paris",
        "Spring 2031",
        "2030-10-01",
        "Mira Solenne",
    )
    assert [look.number for look in show.looks] == list(range(1, 9))
    assert all(look.image.url.endswith("-scaled.jpg") for look in show.looks)
    assert show.looks[0].image.url == (
        f"https://street.test/wp-content/uploads/2030/10/{PARIS}-the-impression-001-scaled.jpg"
    )
    assert msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest) == show


def test_original_option_strips_size_suffixes(site_file: File, policy: ImagePolicy) -> None:
    originals = ImagePolicy(
        upload_hosts=policy.upload_hosts, cdn_hosts=policy.cdn_hosts, original=True
    )
    post = parse_post_page(site_file(f"{PARIS}/index.html"), f"https://street.test/{PARIS}/")
    urls = [look.image.url for look in post_to_show(post, originals).looks]
    assert (
        urls[0] == f"https://street.test/wp-content/uploads/2030/10/{PARIS}-the-impression-001.jpg"
    )
    assert not any("-scaled" in url or "x1024" in url for url in urls)


def test_lazy_images_and_noscript_copies_count_once(site_file: File, policy: ImagePolicy) -> None:
    slug = SLUGS[1]
    show = post_to_show(
        parse_post_page(site_file(f"{slug}/index.html"), f"https://street.test/{slug}/"), policy
    )
    assert len(show.looks) == 9
    assert all(look.image.url.endswith("-1366x2048.jpg") for look in show.looks)
    assert show.author == "Anouk Bremer"


def test_cdn_images_density_srcsets_and_query_strings(site_file: File, policy: ImagePolicy) -> None:
    coachella = post_to_show(rest_posts(site_file)[2], policy)
    assert [look.image.url.rsplit("/", 1)[1] for look in coachella.looks] == [
        f"street-style-coachella-2031-d3-theimpression-{n:02d}.jpg" for n in range(1, 6)
    ]
    assert all(look.image.url.startswith("https://cdn.street.test/") for look in coachella.looks)
    assert (coachella.city, coachella.season, coachella.author) == ("", "", "Teo Varga")
    tokyo = post_to_show(rest_posts(site_file)[6], policy)
    assert [look.image.url.rsplit("-", 1)[1] for look in tokyo.looks[:3]] == ["1366x2048.jpg"] * 3
    assert tokyo.looks[3].image.url.endswith("-4-683x1024.jpg?resize=683%2C1024&ssl=1")


def test_news_and_empty_posts_are_skipped_with_a_reason(
    site_file: File, policy: ImagePolicy
) -> None:
    posts = rest_posts(site_file)
    with pytest.raises(ShowSkipped, match=r"not street style \(categories: Fashion News\)"):
        post_to_show(posts[3], policy)
    with pytest.raises(ShowSkipped, match="no images"):
        post_to_show(posts[4], policy)


@pytest.mark.parametrize(
    ("parser", "text", "message"),
    [
        (parse_rest_posts, "<html>blocked</html>", "not JSON"),
        (parse_rest_posts, '{"code": "rest_no_route"}', "expected a JSON list"),
        (parse_feed, "<html><body>no feed</body></html>", "not an RSS feed"),
        (parse_feed, "", "not an RSS feed"),
    ],
)
def test_unreadable_pages_are_clear_parse_errors(
    parser: Callable[[str, str], object], text: str, message: str
) -> None:
    with pytest.raises(ImpressionParseError, match=message) as caught:
        parser(text, "https://street.test/x")
    assert "https://street.test/x" in str(caught.value)


def test_rest_items_without_link_or_slug_are_ignored() -> None:
    text = (
        '[{"slug": "a"}, 3, {"link": "https://s.test/b/"}, {"link": "javascript:x", "slug": "c"}]'
    )
    assert [p.slug for p in parse_rest_posts(text, "u")] == ["b"]
