"""TheImpressionSource: recent street-style posts of The Impression, each as a ShowIngest.

Posts are listed newest first through the WordPress REST API when it answers JSON, else
the RSS feed topped up with listing pages (``/page/N/``) once the feed runs out. Posts that
arrived with their body (REST, ``content:encoded``) are not fetched again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Literal
from urllib.parse import urljoin, urlsplit

import httpx

from rk.core.api.errors import ConfigError, SourceError, SourceUnavailable, source_error
from rk.core.api.sources import (
    BrandTarget,
    ShowSummary,
    flag_option,
    lowercase_slug_problem,
    thumb_size_option,
)
from rk.core.api.wire import ShowIngest
from rk.plugins.theimpression.images import ImagePolicy
from rk.plugins.theimpression.parse import (
    ImpressionParseError,
    Post,
    parse_feed,
    parse_listing,
    parse_post_page,
    parse_rest_posts,
    slug_of,
)
from rk.plugins.theimpression.show import post_to_show

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://theimpression.com"
SITE_HOSTS = frozenset({"theimpression.com", "www.theimpression.com"})
MAX_PAGES = 1000  # a runaway guard for "all posts"; real archives are far shorter


def _hosts(options: Mapping[str, Any]) -> frozenset[str]:
    value = options.get("cdn_hosts", ["img.theimpression.com"])
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple):
        raise ConfigError("sources.theimpression.cdn_hosts must be a list of host names")
    return frozenset(str(host).strip().lower() for host in value if str(host).strip())


class TheImpressionSource:
    """The Impression: street-style posts, newest first; each post's photos become looks.

    Options (``sources.theimpression``): ``base_url`` (default https://theimpression.com),
    ``original`` (true: strip WordPress ``-WxH``/``-scaled`` suffixes to get the upload),
    ``cdn_hosts`` (image CDN host names, default ``[img.theimpression.com]``) and
    ``thumb_size`` (from ``media.thumb_size``: each photo also names the smallest ``-WxH``
    copy covering a thumbnail).
    """

    name: ClassVar[str] = "theimpression"
    kind: ClassVar[Literal["runway", "street"]] = "street"
    needs_brand: ClassVar[bool] = False

    @staticmethod
    def slug_problem(slug: str) -> str | None:
        """A brand slug here is a tag's slug (``/tag/<slug>/``, WordPress style): lowercase
        words and digits joined by '-'; None when ``slug`` is one. Crawls never use it
        (posts are listed newest first, not per brand); it is kept for reference."""
        problem = lowercase_slug_problem(slug)
        return f"not a The Impression tag slug: {problem}" if problem else None

    def __init__(self, client: httpx.AsyncClient, options: Mapping[str, Any]) -> None:
        base = str(options.get("base_url") or DEFAULT_BASE_URL)
        if not base.startswith(("http://", "https://")):
            raise ConfigError(f"sources.theimpression.base_url must be http(s), got {base!r}")
        self._client = client
        self._base = base.rstrip("/") + "/"
        self._policy = ImagePolicy(
            upload_hosts=SITE_HOSTS | {urlsplit(self._base).netloc.lower()},
            cdn_hosts=_hosts(options),
            original=flag_option(options, "original", "theimpression"),
            thumb_size=thumb_size_option(options, self.name),
        )
        self._posts: dict[str, Post] = {}

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        """The newest posts, at most ``limit`` (None or 0: all); ``brand`` is ignored."""
        cap = limit if limit and limit > 0 else None
        posts = await self._rest_posts(cap)
        if posts is None:
            posts = await self._feed_posts()
            posts = posts[:cap] if cap else posts
            if cap is None or len(posts) < cap:
                seen = {post.url for post in posts}
                more = await self._listing_posts(None if cap is None else cap - len(posts), seen)
                posts += more
            if not posts:
                raise SourceError(
                    f"theimpression: no posts at {self._base} (no REST API, feed or listing links)"
                )
        for post in posts:
            if post.content:
                self._posts[post.url] = post
        return [ShowSummary(url=post.url, title=post.title, key=post.slug) for post in posts]

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        """One post as a ShowIngest; ShowSkipped when not street style or without photos."""
        post = self._posts.get(show.url)
        if post is None:
            response = await self._get(show.url)
            post = parse_post_page(response.text, str(response.url))
        return post_to_show(post, self._policy)

    async def _rest_posts(self, cap: int | None) -> list[Post] | None:
        """Posts from ``/wp-json/wp/v2/posts``; None when the API does not answer JSON."""
        per_page = min(cap or 100, 100)
        posts: list[Post] = []
        page = 1
        while page <= MAX_PAGES:
            url = urljoin(
                self._base, f"wp-json/wp/v2/posts?per_page={per_page}&page={page}&_embed=1"
            )
            response = await self._get(url, accept=(200, 400, 401, 403, 404, 410, 500, 501, 503))
            if response.status_code == 400 and page > 1:
                break  # rest_post_invalid_page_number: past the last page
            is_json = "json" in response.headers.get("Content-Type", "")
            try:
                if response.status_code != 200 or not is_json:
                    raise ImpressionParseError(f"{url}: HTTP {response.status_code}, not JSON")
                found = parse_rest_posts(response.text, str(response.url))
            except ImpressionParseError as exc:
                if page == 1:
                    log.info("theimpression: REST API unavailable, using the feed: %s", exc)
                    return None
                log.warning("theimpression: REST listing stopped at page %d: %s", page, exc)
                break
            posts += found
            total_pages = response.headers.get("X-WP-TotalPages", "")
            if not found or (cap and len(posts) >= cap):
                break
            if total_pages.isdigit() and page >= int(total_pages):
                break
            page += 1
        return posts[:cap] if cap else posts

    async def _feed_posts(self) -> list[Post]:
        """Posts of the RSS feed; [] when there is none."""
        url = urljoin(self._base, "feed/")
        response = await self._get(url, accept=(200, 404, 410, 403))
        try:
            if response.status_code != 200:
                raise ImpressionParseError(f"{url}: HTTP {response.status_code}")
            return parse_feed(response.text, str(response.url))
        except ImpressionParseError as exc:
            log.info("theimpression: no RSS feed, using listing pages: %s", exc)
            return []

    async def _listing_posts(self, cap: int | None, seen: set[str]) -> list[Post]:
        """Posts linked from ``/``, ``/page/2/``, … that are not in ``seen``, newest first.

        Stops at a missing page, or at one that lists nothing new to the listing itself
        (a site that answers every page number with the same posts).
        """
        posts: list[Post] = []
        listed: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            url = self._base if page == 1 else urljoin(self._base, f"page/{page}/")
            response = await self._get(url, accept=(200, 404, 410) if page > 1 else (200,))
            if response.status_code != 200:
                break
            links = parse_listing(response.text, str(response.url))
            if not set(links) - listed:
                break
            listed.update(links)
            for link in links:
                if link not in seen:
                    seen.add(link)
                    posts.append(Post(url=link, slug=slug_of(link)))
            if cap is not None and len(posts) >= cap:
                return posts[:cap]
        return posts

    async def _get(self, url: str, accept: tuple[int, ...] = (200,)) -> httpx.Response:
        """GET ``url``; an answer outside ``accept`` (and not a 2xx) is a SourceError."""
        try:
            response = await self._client.get(url, follow_redirects=True)
        except httpx.HTTPError as exc:
            error = SourceUnavailable if isinstance(exc, httpx.TransportError) else SourceError
            raise error(f"theimpression: GET {url} failed: {type(exc).__name__} {exc}") from exc
        if response.is_success or response.status_code in accept:
            return response
        retry = response.headers.get("Retry-After")
        hint = f" (Retry-After: {retry})" if retry else ""
        raise source_error(response.status_code)(
            f"theimpression: GET {url} answered HTTP {response.status_code} "
            f"{response.reason_phrase}{hint}"
        )
