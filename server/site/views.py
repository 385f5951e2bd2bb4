"""One service function per public view: a page and its JSON twin under ``/api`` call the
same one and differ only in rendering.

Each takes the URL's raw values, checks them (a bad one is a 400 or a 404 before anything
is listed) and returns what both renderings show. Only published, live articles exist here.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.site.brands import BrandCount, BrandIndex, brand_by_uid, brand_index
from rk.server.site.facets import Facets, facets
from rk.server.site.image import ImagePage, Similar, get_image
from rk.server.site.params import FilterQuery, ShowsQuery, parse_id
from rk.server.site.seasons.index import SeasonIndex, season_index
from rk.server.site.seasons.lead import SeasonLead, season_lead
from rk.server.site.seasons.season import SEASON_PAGE, SeasonPage, season_page
from rk.server.site.show import Show, get_show
from rk.server.site.show_filters import ShowFilters, parse_cursor, parse_filters
from rk.server.site.shows import PAGE_SIZE, ShowList, list_shows


class Listing(Struct, frozen=True, kw_only=True):
    """A page of published shows and the checked filters it was listed under."""

    filters: ShowFilters
    shows: ShowList


class BrandListing(Listing, frozen=True, kw_only=True):
    """A brand's page of published shows."""

    brand: BrandCount


class BrandShows(Struct, frozen=True, kw_only=True):
    """Answer to ``GET /api/brands/{uid}``: the brand and a page of its shows."""

    brand: BrandCount
    shows: ShowList


async def shows_view(
    storage: Storage, query: ShowsQuery, limit: int = PAGE_SIZE, tags: frozenset[str] | None = None
) -> Listing:
    """Published shows under the URL's filters (a tag among ``tags``), newest first, older
    ones by keyset."""
    filters = await parse_filters(query, tags)
    shows = await list_shows(storage, filters, parse_cursor(query.before), limit)
    return Listing(filters=filters, shows=shows)


async def facets_view(query: FilterQuery, tags: frozenset[str] | None = None) -> Facets:
    """Each filter's values with their show counts under the URL's filters."""
    return await facets(await parse_filters(query, tags))


async def brands_view() -> BrandIndex:
    """Every brand with a published show, A–Z."""
    return await brand_index()


async def brand_view(
    storage: Storage, uid: str, before: str | None, limit: int = PAGE_SIZE
) -> BrandListing:
    """One brand (by either uid) and its published shows, newest first, older ones by keyset."""
    brand = await brand_by_uid(uid)
    filters = await parse_filters(FilterQuery(brand=brand.uid))
    shows = await list_shows(storage, filters, parse_cursor(before), limit)
    return BrandListing(brand=brand, filters=filters, shows=shows)


async def show_view(storage: Storage, show_id: str) -> Show:
    """A published show: facts, credits, looks in order, then details."""
    return await get_show(storage, parse_id(show_id, "show"))


async def image_view(storage: Storage, image_id: str, asked: Similar) -> ImagePage:
    """A published image, its place in its show and its similar looks as ``asked``."""
    return await get_image(storage, parse_id(image_id, "image"), asked)


async def seasons_view() -> SeasonIndex:
    """Every season with a published show, counted, filed under its year."""
    return await season_index()


async def season_view(
    storage: Storage, slug: str, after: str | None, limit: int = SEASON_PAGE
) -> SeasonPage:
    """One season's published shows by designer A–Z, the next ones after show ``after``."""
    return await season_page(storage, slug, parse_cursor(after, "after"), limit)


async def lead_view(storage: Storage) -> SeasonLead | None:
    """The latest season and its newest shows, which the front page leads with."""
    return await season_lead(storage)
