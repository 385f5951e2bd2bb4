"""The season the front page leads with: the latest one shown on the runway, its newest shows.

"Latest" is the season of the newest published runway show (of any show when there is no
runway show): a street-style post dated yesterday does not make its season the lead.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.site.repository.seasons import newest_season
from rk.server.site.seasons.index import SeasonCount, season_named
from rk.server.site.seasons.names import season_slug
from rk.server.site.show_filters import ShowFilters
from rk.server.site.shows import ShowCard, list_shows

LEAD_SHOWS = 6


class SeasonLead(Struct, frozen=True, kw_only=True):
    """The latest season and its newest published shows, covers first."""

    season: SeasonCount
    shows: list[ShowCard]


async def season_lead(storage: Storage, size: int = LEAD_SHOWS) -> SeasonLead | None:
    """The front page's lead; None while no published show names a season."""
    name = await newest_season("runway") or await newest_season()
    if not season_slug(name):
        return None
    season, _ = await season_named(season_slug(name))
    listed = await list_shows(storage, ShowFilters(season=name), limit=size)
    return SeasonLead(season=season, shows=listed.items)
