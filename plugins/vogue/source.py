"""VogueSource: a designer's runway shows on Vogue Runway, each turned into a ShowIngest."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Literal
from urllib.parse import quote, urljoin

import httpx

from rk.core.api.errors import ConfigError, SourceError, SourceUnavailable, source_error
from rk.core.api.sources import (
    BrandTarget,
    NoSuchSeason,
    ShowSummary,
    flag_option,
    lowercase_slug_problem,
    season_slug,
    thumb_size_option,
)
from rk.core.api.wire import BrandRef, ShowIngest
from rk.plugins.vogue.names import name_key, slugify
from rk.plugins.vogue.parse import (
    DesignerLink,
    parse_designer_shows,
    parse_designers,
    parse_season,
    parse_show,
)
from rk.plugins.vogue.slideshow import link_details, parse_slideshow

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://www.vogue.com"


def base_url(options: Mapping[str, Any]) -> str:
    """The ``base_url`` option with one trailing slash, checked to be an http(s) URL."""
    value = str(options.get("base_url") or DEFAULT_BASE_URL)
    if not value.startswith(("http://", "https://")):
        raise ConfigError(f"sources.vogue.base_url must be an http(s) URL, got {value!r}")
    return value.rstrip("/") + "/"


class VogueSource:
    """Vogue Runway: designer page → shows newest first; show page → looks and detail shots.

    Options (``sources.vogue`` in config): ``base_url`` (default https://www.vogue.com),
    ``original`` (true: image URLs point at the untransformed upload instead of ``xxl``),
    ``link_details`` (default true: fetch each show's slideshow page to link detail shots to
    their looks and name the models; one more request per show) and ``thumb_size`` (from
    ``media.thumb_size``: each image also names the smallest rendition covering a thumbnail).
    """

    name: ClassVar[str] = "vogue"
    kind: ClassVar[Literal["runway", "street"]] = "runway"
    needs_brand: ClassVar[bool] = True

    @staticmethod
    def slug_problem(slug: str) -> str | None:
        """A designer slug is the end of ``/fashion-shows/designer/<slug>``: lowercase
        words and digits joined by '-' (``acne-studios``); None when ``slug`` is one."""
        problem = lowercase_slug_problem(slug)
        return f"not a Vogue designer slug: {problem}" if problem else None

    def __init__(self, client: httpx.AsyncClient, options: Mapping[str, Any]) -> None:
        self._client = client
        self._base = base_url(options)
        self._original = flag_option(options, "original", "vogue")
        self._link_details = flag_option(options, "link_details", "vogue", default=True)
        self._thumb_size = thumb_size_option(options, self.name)
        self._designers: dict[str, DesignerLink] | None = None
        self._designers_lock = asyncio.Lock()
        self.skipped_images = 0

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        """The brand's shows, newest first, at most ``limit`` (None or 0: all).

        A designer page that fails (a 4xx or 5xx answer, or subscriber-only with no show
        listed) is a SourceError naming it, so the crawl task fails with the reason rather
        than ending done with "0 shows". With ``brand.season`` only that season's show:
        addressed directly when the brand has a slug (a season task), else found on the
        designer page.
        """
        if brand is None:
            raise SourceError("vogue: a brand is required (shows are listed per designer)")
        if brand.season and brand.slug:
            return [self._season_show(brand.season, brand.slug)]
        url = await self.designer_url(brand)
        response = await self._get(url, missing_ok=True)
        if response.status_code == 404:
            raise SourceError(
                f"vogue: no designer page for {brand.name!r}: {url} answered HTTP 404"
                " (set the brand's vogue slug if Vogue spells it otherwise)"
            )
        links = parse_designer_shows(response.text, str(response.url))
        if brand.season:
            links = [link for link in links if link.key.startswith(f"{brand.season}/")]
        shows = [ShowSummary(url=link.url, title=link.title, key=link.key) for link in links]
        return shows[:limit] if limit and limit > 0 else shows

    async def list_season(self, season: str) -> list[ShowSummary]:
        """Every show of the season page ``/fashion-shows/{season}``, each with its designer."""
        slug = season_slug(season)
        url = urljoin(self._base, f"fashion-shows/{slug}")
        response = await self._get(url, missing_ok=True)
        if response.status_code == 404:
            raise NoSuchSeason(f"vogue: no season {slug!r}: {url} answered HTTP 404")
        shows = parse_season(response.text, str(response.url))
        other = [show.key for show in shows if not show.key.startswith(f"{slug}/")]
        if other:
            log.warning("vogue: season %s lists shows of other seasons, left out: %s", slug, other)
        return [
            ShowSummary(url=s.url, key=s.key, brand_name=s.designer, brand_slug=s.slug)
            for s in shows
            if s.key.startswith(f"{slug}/")
        ]

    def _season_show(self, season: str, slug: str) -> ShowSummary:
        """The show of designer ``slug`` in ``season``, addressed directly (no listing)."""
        key = f"{season_slug(season)}/{slug.strip('/')}"
        return ShowSummary(url=urljoin(self._base, f"fashion-shows/{quote(key)}"), key=key)

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        """One show page as a ShowIngest; ShowSkipped when subscriber-only or without images."""
        response = await self._get(show.url)
        ref = BrandRef(uid=brand.uid, name=brand.name[:200]) if brand and brand.uid else None
        parsed = parse_show(
            response.text,
            str(response.url),
            hed=show.title,
            original=self._original,
            brand=ref,
            thumb_size=self._thumb_size,
        )
        key = parsed.show.show_key
        for number in parsed.skipped_looks:
            log.warning("vogue: %s: look %d has no image or sources; skipped", key, number)
        for number in parsed.skipped_details:
            log.warning("vogue: %s: detail %d has no image or sources; skipped", key, number)
        self.skipped_images += len(parsed.skipped_looks) + len(parsed.skipped_details)
        if not self._link_details:
            return parsed.show
        return await self._linked(parsed.show)

    async def _linked(self, show: ShowIngest) -> ShowIngest:
        """The show with details linked to looks and models named from its slideshow page.

        A missing or unreadable slideshow page leaves the show as it is (details unlinked).
        """
        url = f"{show.url.split('#')[0].split('?')[0].rstrip('/')}/slideshow/collection"
        try:
            response = await self._get(url, missing_ok=True)
            if response.status_code == 404:
                log.info("vogue: %s: no slideshow page; details stay unlinked", show.show_key)
                return show
            linked = link_details(show, parse_slideshow(response.text, str(response.url)))
        except SourceError as exc:
            log.warning("vogue: %s: details stay unlinked: %s", show.show_key, exc)
            return show
        log.info(
            "vogue: %s: %d of %d details linked to looks, %d of %d models named",
            show.show_key,
            linked.details_linked,
            len(show.details),
            linked.models_named,
            len(show.looks),
        )
        return linked.show

    async def designer_url(self, brand: BrandTarget) -> str:
        """The brand's designer page: explicit slug, else the A–Z link, else the slugified name."""
        if brand.slug:
            return urljoin(self._base, f"fashion-shows/designer/{quote(brand.slug.strip('/'))}")
        link = (await self._designer_index()).get(name_key(brand.name))
        if link is not None and link.url:
            return urljoin(self._base, link.url)
        slug = slugify(link.name if link is not None else brand.name)
        if not slug:
            raise SourceError(f"vogue: cannot make a designer slug from {brand.name!r}")
        return urljoin(self._base, f"fashion-shows/designer/{slug}")

    async def _designer_index(self) -> dict[str, DesignerLink]:
        """The A–Z page by name key, fetched once per source object (one run)."""
        async with self._designers_lock:
            if self._designers is None:
                url = urljoin(self._base, "fashion-shows/designers")
                try:
                    response = await self._get(url)
                    links = parse_designers(response.text, str(response.url))
                except SourceError as exc:
                    log.warning("vogue: designer index unavailable, slugifying names: %s", exc)
                    links = []
                self._designers = {}
                for link in links:
                    self._designers.setdefault(name_key(link.name), link)
            return self._designers

    async def _get(self, url: str, *, missing_ok: bool = False) -> httpx.Response:
        """GET ``url``; any non-2xx answer is a SourceError, except 404 when ``missing_ok``."""
        try:
            response = await self._client.get(url, follow_redirects=True)
        except httpx.HTTPError as exc:
            error = SourceUnavailable if isinstance(exc, httpx.TransportError) else SourceError
            raise error(f"vogue: GET {url} failed: {type(exc).__name__} {exc}") from exc
        if response.is_success or (missing_ok and response.status_code == 404):
            return response
        retry = response.headers.get("Retry-After")
        hint = f" (Retry-After: {retry})" if retry else ""
        raise source_error(response.status_code)(
            f"vogue: GET {url} answered HTTP {response.status_code} {response.reason_phrase}{hint}"
        )
