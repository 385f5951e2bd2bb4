"""The visitors' pages: home (shows with filters), brands A–Z, a brand, a show, an image.

Each page is rendered from the same services as its JSON twin in ``api`` and sent with
``http_cache`` headers. Unknown or unpublished things are friendly 404 pages.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get

from rk.core.api.storage import Storage
from rk.server.similarity import runtime_of
from rk.server.site.brands import brand_by_uid, brand_index
from rk.server.site.facets import facets
from rk.server.site.http_cache import render_html, send
from rk.server.site.image import get_image
from rk.server.site.page_cache import Rendered, cached, serve_cached
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
from rk.server.site.show import get_show
from rk.server.site.show_filters import KINDS, parse_cursor, parse_filters
from rk.server.site.shows import ShowList, list_shows


def newest(shows: ShowList) -> int:
    """The newest change among the listed shows (for Last-Modified)."""
    return max((card.updated_at for card in shows.items), default=0)


def storage_of(request: Request[Any, Any, Any]) -> Storage:
    """The app's storage as public pages link it (``/media``), read from the app state (a
    ``state`` or ``storage`` parameter would cost a copy of the state and a Protocol
    ``isinstance`` check per request)."""
    storage: Storage = request.app.state.public_storage
    return storage


def model_of(request: Request[Any, Any, Any]) -> str | None:
    """The backend's embedding model id, None when it has none."""
    embedder = runtime_of(request.app.state).embedder
    return embedder.model_id if embedder is not None else None


class PublicPages(Controller):
    """HTML pages of published shows and images."""

    include_in_schema = False
    tags = ("public",)
    middleware = (serve_cached,)

    @get("/", name="public:home")
    async def home(
        self,
        request: Request[Any, Any, Any],
        brand: Brand = None,
        season: Season = None,
        year: Year = None,
        city: City = None,
        kind: Kind = None,
        before: Before = None,
    ) -> Response[bytes]:
        """Newest published shows first, filtered by the URL, older ones by keyset."""

        async def render() -> Rendered:
            filters = await parse_filters(brand, season, year, city, kind)
            shows = await list_shows(storage_of(request), filters, parse_cursor(before))
            context = {
                "filters": filters,
                "shows": shows,
                "facets": await facets(filters),
                "kinds": KINDS,
                "first_page": not before,
            }
            return render_html(request, "public/home.html", context, newest(shows))

        return send(request, await cached(request, render))

    @get("/brands", name="public:brands")
    async def brands(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        """Every brand with published shows, A–Z, with counts."""

        async def render() -> Rendered:
            return render_html(request, "public/brands.html", {"index": await brand_index()})

        return send(request, await cached(request, render))

    @get("/brands/{uid:str}", name="public:brand")
    async def brand(
        self,
        request: Request[Any, Any, Any],
        uid: BrandUid,
        before: Before = None,
    ) -> Response[bytes]:
        """One brand's published shows, newest first."""

        async def render() -> Rendered:
            found = await brand_by_uid(uid)
            filters = await parse_filters(brand=found.uid)
            shows = await list_shows(storage_of(request), filters, parse_cursor(before))
            context = {"brand": found, "filters": filters, "shows": shows, "first_page": not before}
            return render_html(request, "public/brand.html", context, newest(shows))

        return send(request, await cached(request, render))

    @get("/shows/{show_id:str}", name="public:show")
    async def show(
        self,
        request: Request[Any, Any, Any],
        show_id: ShowId,
    ) -> Response[bytes]:
        """A published show: facts, credits, looks in order, then details."""

        async def render() -> Rendered:
            found = await get_show(storage_of(request), parse_id(show_id, "show"))
            return render_html(request, "public/show.html", {"show": found}, found.updated_at)

        return send(request, await cached(request, render))

    @get("/images/{image_id:str}", name="public:image")
    async def image(
        self,
        request: Request[Any, Any, Any],
        image_id: ImageId,
    ) -> Response[bytes]:
        """A published image large, its show, previous/next look and similar looks."""

        async def render() -> Rendered:
            found = await get_image(
                storage_of(request), parse_id(image_id, "image"), model_of(request)
            )
            return render_html(request, "public/image.html", {"page": found})

        return send(request, await cached(request, render, neighbours=True))
