"""The visitors' pages: home (the latest season, then shows with filters), brands A–Z, a
brand, seasons by year, a season, a show, an image.

Each page renders what its view (``views``) returns, the same call its JSON twin in ``api``
makes, and is sent with ``http_cache`` headers. Unknown or unpublished things are friendly
404 pages.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency

from rk.core.api.storage import Storage
from rk.core.api.vector_indexes import VectorIndex
from rk.server.platform.http.session_cookie import moderator_looking
from rk.server.similarity import ModelIndex, runtime_of
from rk.server.site.citing.jsonld import image_jsonld, show_jsonld
from rk.server.site.citing.routes import base_of
from rk.server.site.facets import facets
from rk.server.site.http_cache import PRIVATE, answer, render_html, send
from rk.server.site.image import Similar
from rk.server.site.indexes import brand_groups, season_groups
from rk.server.site.page_cache import Rendered, serve_cached
from rk.server.site.params import (
    QUERIES,
    After,
    Before,
    BrandUid,
    ImageId,
    SeasonSlug,
    ShowId,
    ShowsQuery,
    SimilarScope,
)
from rk.server.site.show_filters import KINDS
from rk.server.site.views import (
    Listing,
    brand_view,
    brands_view,
    image_view,
    lead_view,
    season_view,
    seasons_view,
    show_view,
    shows_view,
)
from rk.server.tags import tags_of


def storage_of(request: Request[Any, Any, Any]) -> Storage:
    """The app's storage as public pages link it (``/media``), read from the app state (a
    ``state`` or ``storage`` parameter would cost a copy of the state and a Protocol
    ``isinstance`` check per request)."""
    storage: Storage = request.app.state.public_storage
    return storage


def similar_of(request: Request[Any, Any, Any], scope: str) -> Similar:
    """How the image page and its JSON twin ask for similar looks: under the backend's
    embedding model (None when it has none), within ``scope``, through the app's vector
    index (None without a model or an index)."""
    embedder = runtime_of(request.app.state).embedder
    model = embedder.model_id if embedder is not None else None
    index = request.app.state.get("vector_index")
    if model is None or not isinstance(index, VectorIndex):
        return Similar(model=model, scope=scope)
    return Similar(model=model, scope=scope, index=ModelIndex(index, model))


def listed(found: Listing, before: str | None, **more: Any) -> dict[str, Any]:
    """A page of shows' template context: its filters and shows, whether it is the first
    page, and ``more``."""
    return {"filters": found.filters, "shows": found.shows, "first_page": not before, **more}


class PublicController(Controller):
    """What the pages and their JSON twin share: answers kept in the page cache, and the
    show lists' query parameters."""

    tags = ("public",)
    middleware = (serve_cached,)
    dependencies = QUERIES


class PublicPages(PublicController):
    """HTML pages of published shows and images."""

    include_in_schema = False

    @get("/", name="public:home")
    async def home(
        self, request: Request[Any, Any, Any], shows_query: NamedDependency[ShowsQuery]
    ) -> Response[bytes]:
        """The latest season first, then the newest published shows, filtered by the URL,
        older ones by keyset."""

        async def render() -> Rendered:
            storage = storage_of(request)
            names = tags_of(request.app.state).vocabulary.names
            found = await shows_view(storage, shows_query, tags=names)
            front = not found.filters.active and not shows_query.before
            lead = await lead_view(storage) if front else None
            more = {"facets": await facets(found.filters), "kinds": KINDS, "lead": lead}
            context = listed(found, shows_query.before, **more)
            return render_html(request, "public/home.html", context, found.shows.newest())

        return await answer(request, render)

    @get("/brands", name="public:brands")
    async def brands(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        """Every brand with published shows, A–Z, with counts."""

        async def render() -> Rendered:
            grouped = brand_groups(await brands_view())
            return render_html(request, "public/brands.html", {"page": grouped})

        return await answer(request, render)

    @get("/brands/{uid:str}", name="public:brand")
    async def brand(
        self, request: Request[Any, Any, Any], uid: BrandUid, before: Before = None
    ) -> Response[bytes]:
        """One brand's published shows, newest first."""

        async def render() -> Rendered:
            found = await brand_view(storage_of(request), uid, before)
            context = listed(found, before, brand=found.brand)
            return render_html(request, "public/brand.html", context, found.shows.newest())

        return await answer(request, render)

    @get("/seasons", name="public:seasons")
    async def seasons(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        """Every season with published shows, by year, with counts."""

        async def render() -> Rendered:
            grouped = season_groups(await seasons_view())
            return render_html(request, "public/seasons.html", {"page": grouped})

        return await answer(request, render)

    @get("/seasons/{slug:str}", name="public:season")
    async def season(
        self, request: Request[Any, Any, Any], slug: SeasonSlug, after: After = None
    ) -> Response[bytes]:
        """One season's published shows by designer A–Z."""

        async def render() -> Rendered:
            found = await season_view(storage_of(request), slug, after)
            context = {"page": found, "first_page": not after}
            return render_html(request, "public/season.html", context, found.newest())

        return await answer(request, render)

    @get("/shows/{show_id:str}", name="public:show")
    async def show(self, request: Request[Any, Any, Any], show_id: ShowId) -> Response[bytes]:
        """A published show: facts, credits, looks in order, then details."""

        async def render() -> Rendered:
            found = await show_view(storage_of(request), show_id)
            context = {"show": found, "jsonld": show_jsonld(found, base_of(request))}
            return render_html(request, "public/show.html", context, found.updated_at)

        return await answer(request, render)

    @get("/images/{image_id:str}", name="public:image")
    async def image(
        self, request: Request[Any, Any, Any], image_id: ImageId, scope_name: SimilarScope = "all"
    ) -> Response[bytes]:
        """A published image large, its show, previous/next look and similar looks (within
        ``scope_name``; with their scores and the model id for a signed-in moderator: never
        cached nor shared)."""

        async def render(moderator: bool = False) -> Rendered:
            found = await image_view(storage_of(request), image_id, similar_of(request, scope_name))
            jsonld = image_jsonld(found, base_of(request))
            context = {"page": found, "jsonld": jsonld, "moderator": moderator}
            return render_html(request, "public/image.html", context, vary="Cookie")

        if await moderator_looking(request):
            return send(request, await render(moderator=True), cache_control=PRIVATE)
        return await answer(request, render, neighbours=True)
