"""Every season with published shows, counted and filed under its year, newest first.

The counts are the kept ones (``repository.seasons``). Within a year, the season shown
last comes first; seasons naming no year are filed last, under "Other seasons". Season
names that fold to one slug ("Fall/Winter 2031", "Fall Winter 2031") share one page.
"""

from __future__ import annotations

from itertools import groupby

import msgspec
from msgspec import Struct

from rk.server.platform.http.errors import NotFound
from rk.server.site.repository.seasons import published_seasons
from rk.server.site.seasons.names import collection_of, is_slug, season_slug, season_year


class SeasonCount(Struct, frozen=True, kw_only=True):
    """A season as lists link it: its name, page slug, year, collection and published shows."""

    name: str
    slug: str
    year: int | None
    collection: str
    shows: int


class SeasonYear(Struct, frozen=True, kw_only=True):
    """The seasons of one year (``year`` None: the seasons that name none)."""

    year: int | None
    seasons: list[SeasonCount]


class SeasonIndex(Struct, frozen=True, kw_only=True):
    """Every season with a published show, by year; ``total`` seasons in all."""

    years: list[SeasonYear]
    total: int


class Dated(Struct, frozen=True, kw_only=True):
    """A season with the date of its newest published show (for ordering)."""

    season: SeasonCount
    latest: str


def count_of(name: str, shows: int) -> SeasonCount:
    """The SeasonCount of a season's name and its number of published shows."""
    return SeasonCount(
        name=name,
        slug=season_slug(name),
        year=season_year(name),
        collection=collection_of(name),
        shows=shows,
    )


async def dated_seasons() -> list[Dated]:
    """Every named season with published shows, newest year first, then newest shown first."""
    found = [
        Dated(season=count_of(str(r["name"]), int(str(r["n"]))), latest=str(r["latest"] or ""))
        for r in await published_seasons()
        if season_slug(str(r["name"]))
    ]
    by_name = sorted(found, key=lambda d: d.season.name)
    by_latest = sorted(by_name, key=lambda d: d.latest, reverse=True)
    return sorted(by_latest, key=lambda d: d.season.year or 0, reverse=True)


async def season_index() -> SeasonIndex:
    """The index of ``/seasons``: every season, filed under its year."""
    seasons = [d.season for d in await dated_seasons()]
    years = [
        SeasonYear(year=year, seasons=list(group))
        for year, group in groupby(seasons, key=lambda s: s.year)
    ]
    return SeasonIndex(years=years, total=len(seasons))


async def season_named(slug: str) -> tuple[SeasonCount, list[str]]:
    """The season whose page is ``slug``, and the names it stands for; NotFound when no
    season with published shows has that slug."""
    if is_slug(slug):
        named = [d.season for d in await dated_seasons() if d.season.slug == slug]
        if named:
            shows = sum(s.shows for s in named)
            return msgspec.structs.replace(named[0], shows=shows), [s.name for s in named]
    raise NotFound(f"no season {slug[:60]!r} with published shows: see /seasons")
