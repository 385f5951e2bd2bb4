"""Whole seasons: the brands of a season's shows, found or created, and one task per brand.

A season page names each show's designer and slug (``season_brands`` reads it through the
source plugin and the shared polite HTTP client). ``ensure_brand`` finds the brand by
its slug on the source, else by name (exact, then any case), and creates it with that slug
when there is none; ``queue_season`` does that for every show and queues a crawl task of
the brand's show of that season, unless one is already queued or running. Used by
``rk crawl add-season`` (and meant for the console's crawl page) and by the signed
``POST /admin/internal/brands`` (one-shot spiders crawling a season without ``-d``).
"""

from __future__ import annotations

import re
import sqlite3
import time
from typing import Any

import asyncpg
from msgspec import Struct

from rk.core.api.errors import RkError
from rk.core.api.lookups import get_source
from rk.core.api.sources import SeasonSource, season_slug
from rk.core.api.wire import BrandInfo
from rk.core.config import Settings
from rk.server.brands import BrandInputError, brand_info, clean_name, new_brand, slugs_of
from rk.server.crawl.repository_seasons import (
    brand_named,
    brand_named_in_any_case,
    brands_mentioning_slug,
    season_task_active,
    set_brand_slugs,
)
from rk.server.crawl.tasks import CrawlTasks

DUPLICATE = (asyncpg.UniqueViolationError, sqlite3.IntegrityError)
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")


class SeasonShowBrand(Struct, frozen=True, kw_only=True):
    """One show of a season listing: its designer's display name and slug on the source."""

    name: str
    slug: str


class NoSeasons(RkError):
    """The source cannot list a season's shows."""


async def season_brands(
    settings: Settings, source: str, season: str
) -> tuple[str, list[SeasonShowBrand]]:
    """The season's slug and the brand of each of its shows, read from the source's site.

    Raises:
        ValueError: ``season`` is not a season slug.
        UnknownPlugin, NoSeasons: no such source, or one that cannot list seasons.
        NoSuchSeason: the site has no such season; SourceError: the page cannot be read.
    """
    from rk.core.runtime.http import polite_client

    slug = season_slug(season)
    cls = get_source(source)
    if not callable(getattr(cls, "list_season", None)):
        raise NoSeasons(f"{source} cannot list a season's shows")
    async with polite_client(settings.spider) as http:
        listing: SeasonSource = cls(http, settings.source_options(source))  # type: ignore[assignment]
        shows = await listing.list_season(slug)
    brands = [
        SeasonShowBrand(name=show.brand_name or show.brand_slug, slug=show.brand_slug)
        for show in shows
        if show.brand_slug
    ]
    return slug, brands


class SeasonQueued(Struct, kw_only=True):
    """What ``queue_season`` did, brand by brand."""

    queued: list[tuple[int, str]] = []
    created: list[str] = []
    already: list[str] = []
    other_slug: list[str] = []

    def summary(self, source: str, season: str) -> str:
        """One line for the operator."""
        line = (
            f"queued {len(self.queued)} tasks for {season} on {source} "
            f"({len(self.created)} brands created, {len(self.already)} already queued)"
        )
        if self.other_slug:
            line += f"; kept their own {source} slug: {', '.join(self.other_slug)}"
        return line


async def _find(name: str, source: str, slug: str) -> dict[str, Any] | None:
    """The brand row with ``slug`` on ``source``, else named ``name`` (exactly, then any case)."""
    for row in await brands_mentioning_slug(slug):
        if slugs_of(row["slugs"]).get(source) == slug:
            return row
    named = await brand_named(name)
    if named is not None:
        return named
    return await brand_named_in_any_case(name)


async def ensure_brand(name: str, source: str, slug: str) -> tuple[BrandInfo, bool]:
    """The brand of ``slug`` on ``source`` (or of ``name``), created when missing; True if new.

    A brand found by name that has no slug on ``source`` gets this one; a different slug
    it already has is kept (an operator set it). BrandInputError for a bad name or slug.
    """
    name = clean_name(name)
    if not SLUG.fullmatch(slug) or len(slug) > 200:
        raise BrandInputError(f"{source} slug {slug[:80]!r} is not lowercase words joined by '-'")
    for _ in range(3):
        row = await _find(name, source, slug)
        if row is not None:
            slugs = slugs_of(row["slugs"])
            if source not in slugs:
                slugs[source] = slug
                await set_brand_slugs(row["id"], slugs, int(time.time()))
            info = await brand_info(str(row["id"]))
            if info is not None:
                return info, False
            continue
        try:
            return await new_brand(name, {source: slug}), True
        except DUPLICATE:
            continue  # created meanwhile by another caller: find it
    raise RuntimeError(f"brand {name!r} could neither be found nor created")


async def queue_season(
    tasks: CrawlTasks,
    source: str,
    season: str,
    shows: list[SeasonShowBrand],
    priority: int = 0,
) -> SeasonQueued:
    """Ensure each show's brand and queue a task for its show of ``season`` (once)."""
    report = SeasonQueued()
    for show in shows:
        info, created = await ensure_brand(show.name, source, show.slug)
        if created:
            report.created.append(info.name)
        elif info.slugs.get(source, show.slug) != show.slug:
            report.other_slug.append(f"{info.name} ({info.slugs[source]}, listed {show.slug})")
        if await season_task_active(info.id, source, season):
            report.already.append(info.name)
            continue
        task_id = await tasks.add_task(info.id, 0, priority, source, season)
        report.queued.append((task_id, info.name))
    return report
