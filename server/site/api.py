"""The JSON twin of the public pages, under ``/api``: the same services, the same rules.

Only published, live articles exist here too: anything else is a 404 ``{"error": …}``.
Answers carry the same ETag and Cache-Control as the pages.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.params import QueryParameter
from msgspec import Struct

from rk.server.site.brands import BrandCount, BrandIndex, brand_by_uid, brand_index
from rk.server.site.facets import Facets, facets
from rk.server.site.http_cache import render_json, send
from rk.server.site.image import ImagePage, get_image
from rk.server.site.page_cache import Rendered, cached, serve_cached
from rk.server.site.pages import model_of, newest, storage_of
from rk.server.site.params import (
    Before,
    Brand,
    BrandUid,
    City,
    ImageId,
    Kind,
    Season,
    ShowId,
    Year,
    parse_id,
)
from rk.server.site.show import Show, get_show
from rk.server.site.show_filters import parse_cursor, parse_filters
from rk.server.site.shows import PAGE_SIZE, ShowList, list_shows

Limit = Annotated[int, QueryParameter(description="Shows per page (1-100)", ge=1, le=100)]


class BrandShows(Struct, frozen=True, kw_only=True):
    """Answer to ``GET /api/brands/{uid}``: the brand and a page of its shows."""

    brand: BrandCount
    shows: ShowList


class PublicApi(Controller):
    """Published shows, brands and images as JSON."""

    path = "/api"
    tags = ("public",)
    middleware = (serve_cached,)

    @get("/shows", summary="Published shows, newest first, filtered, keyset-paged")
    async def shows(
        self,
        request: Request[Any, Any, Any],
        brand: Brand = None,
        season: Season = None,
        year: Year = None,
        city: City = None,
        kind: Kind = None,
        before: Before = None,
        limit: Limit = PAGE_SIZE,
    ) -> Response[ShowList]:
        """The home page's list; pass ``next_before`` back as ``before`` for older shows."""

        async def render() -> Rendered:
            filters = await parse_filters(brand, season, year, city, kind)
            found = await list_shows(storage_of(request), filters, parse_cursor(before), limit)
            return render_json(found, newest(found))

        return send(request, await cached(request, render))

    @get("/facets", summary="Filter values with show counts under the given filters")
    async def facets(
        self,
        request: Request[Any, Any, Any],
        brand: Brand = None,
        season: Season = None,
        year: Year = None,
        city: City = None,
        kind: Kind = None,
    ) -> Response[Facets]:
        """The home page's sidebar: each filter's values and how many shows each gives."""

        async def render() -> Rendered:
            return render_json(await facets(await parse_filters(brand, season, year, city, kind)))

        return send(request, await cached(request, render))

    @get("/shows/{show_id:str}", summary="One published show with its looks and details")
    async def show(
        self,
        request: Request[Any, Any, Any],
        show_id: ShowId,
    ) -> Response[Show]:
        """Facts, credits, looks in order, then details; 404 unless published."""

        async def render() -> Rendered:
            found = await get_show(storage_of(request), parse_id(show_id, "show"))
            return render_json(found, found.updated_at)

        return send(request, await cached(request, render))

    @get("/images/{image_id:str}", summary="One published image, its show and similar looks")
    async def image(
        self,
        request: Request[Any, Any, Any],
        image_id: ImageId,
    ) -> Response[ImagePage]:
        """The image, previous/next in its show, and its stored neighbours with scores."""

        async def render() -> Rendered:
            checked = parse_id(image_id, "image")
            return render_json(await get_image(storage_of(request), checked, model_of(request)))

        return send(request, await cached(request, render, neighbours=True))

    @get("/brands", summary="Brands with published shows, A–Z, with counts")
    async def brands(self, request: Request[Any, Any, Any]) -> Response[BrandIndex]:
        """Every brand that has a published show."""

        async def render() -> Rendered:
            return render_json(await brand_index())

        return send(request, await cached(request, render))

    @get("/brands/{uid:str}", summary="One brand and a page of its published shows")
    async def brand(
        self,
        request: Request[Any, Any, Any],
        uid: BrandUid,
        before: Before = None,
        limit: Limit = PAGE_SIZE,
    ) -> Response[BrandShows]:
        """The brand's published shows, newest first."""

        async def render() -> Rendered:
            found = await brand_by_uid(uid)
            filters = await parse_filters(brand=found.uid)
            shows = await list_shows(storage_of(request), filters, parse_cursor(before), limit)
            return render_json(BrandShows(brand=found, shows=shows), newest(shows))

        return send(request, await cached(request, render))
