"""robots.txt by RFC 9309: groups, the longest-match rule, ``*`` and ``$``, normalisation,
Crawl-delay, and the cache's expiry (on a fake clock)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.runtime.robots import (
    CACHE_S,
    RETRY_UNREACHABLE_S,
    Robots,
    RobotsCache,
    matches,
    normalize,
    parse,
)

SITE = """\
# the site's robots.txt
User-agent: *
Disallow: /

User-agent: Googlebot
User-agent: RK/2.0
Disallow: /private/
Allow: /private/open
Disallow: /*.pdf$
Disallow: /tmp
Allow: /tmp$
Crawl-delay: 2.5

Sitemap: https://example.org/sitemap.xml
"""


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/", True),
        ("/shows", True),
        ("/private/", False),
        ("/private/x", False),
        ("/private/open", True),  # the longer Allow wins
        ("/private/opening", True),
        ("/private/Open", False),  # paths are case-sensitive
        ("/file.pdf", False),
        ("/file.pdf?x=1", True),  # $ ends the path
        ("/dir/file.pdf", False),  # * spans slashes
        ("/tmp", True),  # Allow /tmp$ (5 octets) beats Disallow /tmp (4)
        ("/tmp/", False),
        ("/tmpfile", False),
    ],
)
def test_the_rk_group_and_the_longest_match(path: str, allowed: bool) -> None:
    robots = parse(SITE)
    assert robots.allows(path) is allowed
    assert robots.crawl_delay == 2.5


@pytest.mark.parametrize(
    ("text", "path", "allowed"),
    [
        ("User-agent: *\nDisallow: /a\n", "/a/b", False),  # no rk group: the * group
        ("User-agent: other\nDisallow: /\n", "/a", True),  # no group for rk at all
        ("User-agent: rk\nDisallow:\n", "/a", True),  # an empty Disallow allows
        ("User-agent: rk\nDisallow: /a\nAllow: /a\n", "/a", True),  # a tie: Allow
        ("user-AGENT: rK\ndisallow: /a\n", "/a", False),  # keys and the token: any case
        ("User-agent: rk\nDisallow: /a\nUser-agent: rk\nDisallow: /b\n", "/b", False),  # merged
        ("User-agent: rkbot\nDisallow: /\n", "/a", True),  # another product, not rk
        ("Disallow: /\nUser-agent: rk\nAllow: /x\n", "/a", True),  # a rule before any group
        ("\ufeffUser-agent: rk\nDisallow: /a # comment\n", "/a", False),  # BOM, comment
        ("User-agent: rk\r\nDisallow: /a\r\n", "/a", False),  # CRLF
        ("User-agent: rk\nDisallow: /caf%c3%a9\n", "/café", False),  # UTF-8, any escape case
        ("User-agent: rk\nDisallow: /%7Euser\n", "/~user", False),  # unreserved: decoded
        ("User-agent: rk\nDisallow: /a%2Fb\n", "/a/b", True),  # reserved stays encoded
        ("User-agent: rk\nDisallow: /*/photos/*w_2560\n", "/p/photos/1/w_2560,c_limit/x", False),
        ("<html>not a robots file</html>", "/a", True),
    ],
)
def test_groups_and_matching(text: str, path: str, allowed: bool) -> None:
    assert parse(text).allows(path) is allowed


@pytest.mark.parametrize(
    ("text", "delay"),
    [
        ("User-agent: rk\nCrawl-delay: 10\n", 10.0),
        ("User-agent: rk\nCrawl-delay: soon\n", None),
        ("User-agent: rk\nCrawl-delay: -1\n", None),
        ("User-agent: rk\nCrawl-delay: nan\n", None),
        ("User-agent: *\nCrawl-delay: 3\nUser-agent: rk\nAllow: /\n", None),  # not rk's group
        ("User-agent: rk\nCrawl-delay: 1\nUser-agent: rk\nCrawl-delay: 4\n", 4.0),
    ],
)
def test_crawl_delay(text: str, delay: float | None) -> None:
    assert parse(text).crawl_delay == delay


def test_an_unreadable_robots_txt_refuses_everything() -> None:
    robots = Robots(unreachable="HTTP 503")
    assert not robots.allows("/")
    assert not robots.allows("/anything")


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("/a b", "/a%20b"),
        ("/é", "/%C3%A9"),
        ("/%c3%a9", "/%C3%A9"),
        ("/%41%2f", "/A%2F"),
        ("/100%", "/100%"),
        ("/%zz", "/%zz"),
    ],
)
def test_normalize(text: str, normal: str) -> None:
    assert normalize(text) == normal


def reference(pattern: str, path: str) -> bool:
    """The RFC's wildcards as a regular expression: the matcher's independent twin."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = ".*".join(re.escape(piece) for piece in body.split("*"))
    return re.match(regex + (r"\Z" if anchored else ""), path, re.DOTALL) is not None


PIECES = st.text(alphabet="/ab.*$", max_size=8)


@given(pattern=PIECES, path=st.text(alphabet="/ab.*$", max_size=12))
def test_matches_agrees_with_a_regular_expression(pattern: str, path: str) -> None:
    assert matches(pattern, path) == reference(pattern, path)


@given(
    rules=st.lists(st.tuples(st.booleans(), PIECES.map(lambda p: "/" + p)), max_size=6),
    path=st.text(alphabet="/ab.", max_size=10).map(lambda p: "/" + p),
)
def test_the_longest_matching_rule_decides(rules: list[tuple[bool, str]], path: str) -> None:
    text = "User-agent: rk\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    hits = [(len(p), allow) for allow, p in rules if reference(p, path)]
    assert parse(text).allows(path) is (max(hits)[1] if hits else True)


class FakeTime:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.t = 5000.0

    def now(self) -> float:
        return self.t


async def test_the_cache_keeps_a_robots_txt_at_most_24_hours() -> None:
    clock = FakeTime()
    fetched: list[str] = []

    async def fetch(site: str) -> Robots:
        fetched.append(site)
        return Robots()

    cache = RobotsCache(fetch, clock.now)
    await cache.get("https://a.example:443")
    clock.t += CACHE_S - 1
    await cache.get("https://a.example:443")
    await cache.get("https://b.example:443")
    assert fetched == ["https://a.example:443", "https://b.example:443"]
    clock.t += 1
    await cache.get("https://a.example:443")
    assert fetched[-1] == "https://a.example:443"
    assert len(fetched) == 3


async def test_an_unreadable_robots_txt_is_retried_soon() -> None:
    clock = FakeTime()
    answers = [Robots(unreachable="HTTP 503"), Robots()]

    async def fetch(site: str) -> Robots:
        return answers.pop(0)

    cache = RobotsCache(fetch, clock.now)
    assert (await cache.get("http://a:80")).unreachable
    clock.t += RETRY_UNREACHABLE_S - 1
    assert (await cache.get("http://a:80")).unreachable
    clock.t += 1
    assert (await cache.get("http://a:80")).allows("/")
    assert answers == []
