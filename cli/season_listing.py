"""A season's shows for ``rk crawl add-season``, read from the source's site over HTTP.

The operator's machine fetches the season page once (through the same polite client the
spiders use); the database side is ``rk.server.services.season_crawl``.
"""

from __future__ import annotations

import asyncio

from rk.cli.common import fail
from rk.core.config import Settings
from rk.core.errors import RkError, SourceError
from rk.core.sources import NoSuchSeason, SeasonSource, get_source, season_slug
from rk.server.services.season_crawl import SeasonShowBrand


def list_season(settings: Settings, source: str, season: str) -> tuple[str, list[SeasonShowBrand]]:
    """The season slug and the brand of each of its shows.

    Exits 2 on bad input (a malformed or unknown season, a source without seasons), 1 on a
    site error and when the season lists no show.
    """
    try:
        slug = season_slug(season)
    except ValueError as exc:
        fail(str(exc))
    cls = get_source(source)
    if not callable(getattr(cls, "list_season", None)):
        fail(f"{source} cannot list a season's shows")

    async def fetch() -> list[SeasonShowBrand]:
        from rk.core.http import polite_client

        async with polite_client(settings.spider) as http:
            listing: SeasonSource = cls(http, settings.sources.get(source, {}))  # type: ignore[assignment]
            shows = await listing.list_season(slug)
        return [
            SeasonShowBrand(name=show.brand_name or show.brand_slug, slug=show.brand_slug)
            for show in shows
            if show.brand_slug
        ]

    try:
        shows = asyncio.run(fetch())
    except NoSuchSeason as exc:
        fail(str(exc))
    except SourceError as exc:
        fail(str(exc), code=1)
    except RkError as exc:
        fail(str(exc))
    if not shows:
        fail(f"{source} season {slug} lists no shows: nothing queued", code=1)
    return slug, shows
