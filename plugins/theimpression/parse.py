"""Pure parsers for The Impression (WordPress): REST JSON, RSS, listing pages and post pages.

Each turns page text into ``Post`` Structs (or post URLs) and raises only
``ImpressionParseError``. Which images are photos, and what the post is about, is decided
later (``show.py``) so every route into a post ends in the same rules.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin, urlsplit

import msgspec
from lxml.etree import LxmlError
from msgspec import Struct
from parsel import Selector

from rk.core.api.errors import SourceError
from rk.core.api.wire import printable
from rk.core.dates import normalise_date

CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
# First path segments that are WordPress archives or site pages, never a post permalink.
NOT_POSTS = frozenset(
    {"page", "category", "tag", "author", "feed", "search", "wp-content", "wp-json", "wp-admin"}
)
_TAGS = re.compile(r"<[^>]*>")
_CONTENT_CONTAINERS = (
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' entry-content ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' post-content ')]",
    "//article",
    "//main",
    "//body",
)
_SITE_SUFFIX = re.compile(r"\s+[-|–—]\s+The Impression\s*$", re.IGNORECASE)


class ImpressionParseError(SourceError):
    """A page from The Impression could not be read as posts."""


class Post(Struct, frozen=True, kw_only=True):
    """One post as any route found it; ``content`` is its body HTML ("" when not carried)."""

    url: str
    slug: str
    title: str = ""
    date: str = ""
    categories: tuple[str, ...] = ()
    content: str = ""


def selector(text: str, url: str, kind: str = "html") -> Selector:
    """A parsel Selector for ``text``; ImpressionParseError when lxml cannot build one."""
    try:
        return Selector(text=text, type=kind)
    except (ValueError, LxmlError) as exc:
        raise ImpressionParseError(f"{url}: unreadable {kind} ({type(exc).__name__})") from None


def slug_of(url: str) -> str:
    """The last path segment of a permalink (``/street-style-x/`` → ``street-style-x``)."""
    parts = [part for part in urlsplit(url).path.split("/") if part]
    return parts[-1][:512] if parts else ""


def plain(value: str) -> str:
    """Rendered HTML text → plain text: tags removed, entities decoded, spaces collapsed."""
    return " ".join(printable(htmllib.unescape(_TAGS.sub(" ", value)), None).split())


def parse_rest_posts(text: str, url: str) -> list[Post]:
    """Posts of one ``/wp-json/wp/v2/posts`` page (``_embed`` gives category names)."""
    try:
        data = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise ImpressionParseError(f"{url}: not JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, list):
        raise ImpressionParseError(
            f"{url}: expected a JSON list of posts, got {type(data).__name__}"
        )
    posts = []
    for item in data:
        link = _str(_get(item, "link"))
        slug = _str(_get(item, "slug")) or slug_of(link)
        if not link.startswith(("http://", "https://")) or not slug:
            continue
        posts.append(
            Post(
                url=link,
                slug=slug[:512],
                title=plain(_str(_get(_get(item, "title"), "rendered"))),
                date=normalise_date(_str(_get(item, "date"))),
                categories=_rest_categories(item),
                content=_str(_get(_get(item, "content"), "rendered")),
            )
        )
    return posts


def _rest_categories(item: Any) -> tuple[str, ...]:
    """Names of the post's categories from ``_embedded["wp:term"]`` (absent without _embed)."""
    names = []
    for group in _list(_get(_get(item, "_embedded"), "wp:term")):
        for term in _list(group):
            if _get(term, "taxonomy") == "category" and (name := plain(_str(_get(term, "name")))):
                names.append(name)
    return tuple(names)


def parse_feed(text: str, url: str) -> list[Post]:
    """Posts of the RSS feed, newest first; ``content`` is ``content:encoded`` when present."""
    feed = selector(text, url, "xml")
    if getattr(feed.root, "tag", None) != "rss":
        raise ImpressionParseError(f"{url}: not an RSS feed")
    feed.register_namespace("content", CONTENT_NS)
    posts = []
    for item in feed.xpath("/rss/channel/item"):
        link = (item.xpath("string(link)").get() or "").strip()
        if not link.startswith(("http://", "https://")) or not slug_of(link):
            continue
        posts.append(
            Post(
                url=link,
                slug=slug_of(link),
                title=plain(item.xpath("string(title)").get() or ""),
                date=normalise_date(item.xpath("string(pubDate)").get() or ""),
                categories=tuple(
                    name
                    for c in item.xpath("category")
                    if (name := plain(c.xpath("string()").get() or ""))
                ),
                content=item.xpath("string(content:encoded)").get() or "",
            )
        )
    return posts


def parse_listing(text: str, url: str) -> list[str]:
    """Post permalinks on a listing page, in page order, without duplicates."""
    page = selector(text, url)
    hrefs = page.xpath(
        "//article//*[self::h1 or self::h2 or self::h3 or contains(@class, 'title')]//a/@href"
        " | //a[contains(concat(' ', normalize-space(@rel), ' '), ' bookmark ')]/@href"
    ).getall()
    host = urlsplit(url).netloc
    found: list[str] = []
    for href in hrefs:
        link = urljoin(url, href.strip())
        parts = urlsplit(link)
        segments = [part for part in parts.path.split("/") if part]
        if parts.netloc != host or len(segments) != 1 or segments[0] in NOT_POSTS:
            continue
        clean = parts._replace(query="", fragment="").geturl()
        if clean not in found:
            found.append(clean)
    return found


def parse_post_page(text: str, url: str) -> Post:
    """A post permalink page: title, date, categories and the body of the post."""
    page = selector(text, url)
    title = (
        page.xpath("string(//h1[contains(@class, 'entry-title')])").get()
        or page.xpath("string(//meta[@property='og:title']/@content)").get()
        or page.xpath("string(//h1)").get()
        or page.xpath("string(//title)").get()
        or ""
    )
    date = (
        page.xpath("string(//meta[@property='article:published_time']/@content)").get()
        or page.xpath("string(//time/@datetime)").get()
        or ""
    )
    categories = page.xpath(
        "//a[contains(concat(' ', normalize-space(@rel), ' '), ' category ')]//text()"
        " | //meta[@property='article:section']/@content"
    ).getall()
    for token in " ".join(page.xpath("//article/@class").getall()).split():
        if token.startswith("category-"):
            categories.append(token.removeprefix("category-").replace("-", " "))
    content = next((found.get() for xp in _CONTENT_CONTAINERS if (found := page.xpath(xp))), "")
    return Post(
        url=url,
        slug=slug_of(url),
        title=_SITE_SUFFIX.sub("", plain(title)),
        date=normalise_date(date),
        categories=_unique(map(plain, categories)),
        content=content or "",
    )


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    """Non-empty names without case-insensitive repeats, first spelling kept."""
    kept: dict[str, str] = {}
    for name in names:
        if name:
            kept.setdefault(name.casefold(), name)
    return tuple(kept.values())


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


def _list(obj: Any) -> list[Any]:
    return obj if isinstance(obj, list) else []


def _str(obj: Any) -> str:
    return obj.strip() if isinstance(obj, str) else ""
