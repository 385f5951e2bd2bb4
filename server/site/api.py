"""The JSON twin of the public pages, under ``/api``: the same views, the same rules.

Each answer is what the page's view (``views``) returns, as JSON. Only published, live
articles exist here too: anything else is a 404 ``{"error": …}``. Answers carry the same
ETag and Cache-Control as the pages.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from rk.server.site.brands import BrandIndex
from rk.server.site.facets import Facets
from rk.server.site.http_cache import answer, render_json
from rk.server.site.image import ImagePage
from rk.server.site.page_cache import Rendered
from rk.server.site.pages import PublicController, similar_of, storage_of
from rk.server.site.params import (
    After,
    Before,
    BrandUid,
    FilterQuery,
    ImageId,
    SeasonSlug,
    ShowId,
    ShowsQuery,
    SimilarScope,
)
from rk.server.site.seasons.index import SeasonIndex
from rk.server.site.seasons.season import SEASON_PAGE, SeasonPage
from rk.server.site.show import Show
from rk.server.site.shows import PAGE_SIZE, ShowList
from rk.server.site.views import (
    BrandShows,
    brand_view,
    brands_view,
    facets_view,
    image_view,
    season_view,
    seasons_view,
    show_view,
    shows_view,
)
from rk.server.tags import tags_of

Limit = Annotated[int, QueryParameter(description="Shows per page (1-100)", ge=1, le=100)]


class PublicApi(PublicController):
    """Published shows, brands and images as JSON."""

    path = "/api"

    @get("/shows", summary="Published shows, newest first, filtered, keyset-paged")
    async def shows(
        self,
        request: Request[Any, Any, Any],
        shows_query: NamedDependency[ShowsQuery],
        limit: Limit = PAGE_SIZE,
    ) -> Response[ShowList]:
        """The home page's list; pass ``next_before`` back as ``before`` for older shows."""

        async def render() -> Rendered:
            names = tags_of(request.app.state).vocabulary.names
            found = await shows_view(storage_of(request), shows_query, limit, names)
            return render_json(found.shows, found.shows.newest())

        return await answer(request, render)

    @get("/facets", summary="Filter values with show counts under the given filters")
    async def facets(
        self, request: Request[Any, Any, Any], filter_query: NamedDependency[FilterQuery]
    ) -> Response[Facets]:
        """The home page's sidebar: each filter's values and how many shows each gives."""

        async def render() -> Rendered:
            names = tags_of(request.app.state).vocabulary.names
            return render_json(await facets_view(filter_query, names))

        return await answer(request, render)

    @get("/shows/{show_id:str}", summary="One published show with its looks and details")
    async def show(self, request: Request[Any, Any, Any], show_id: ShowId) -> Response[Show]:
        """Facts, credits, looks in order, then details; 404 unless published."""

        async def render() -> Rendered:
            found = await show_view(storage_of(request), show_id)
            return render_json(found, found.updated_at)

        return await answer(request, render)

    @get("/images/{image_id:str}", summary="One published image, its show and similar looks")
    async def image(
        self, request: Request[Any, Any, Any], image_id: ImageId, scope_name: SimilarScope = "all"
    ) -> Response[ImagePage]:
        """The image, previous/next in its show, and its similar looks with scores (stored
        neighbours, or the nearest within ``scope``)."""

        async def render() -> Rendered:
            asked = similar_of(request, scope_name)
            return render_json(await image_view(storage_of(request), image_id, asked))

        return await answer(request, render, neighbours=True)

    @get("/brands", summary="Brands with published shows, A–Z, with counts")
    async def brands(self, request: Request[Any, Any, Any]) -> Response[BrandIndex]:
        """Every brand that has a published show."""

        async def render() -> Rendered:
            return render_json(await brands_view())

        return await answer(request, render)

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
            found = await brand_view(storage_of(request), uid, before, limit)
            return render_json(
                BrandShows(brand=found.brand, shows=found.shows), found.shows.newest()
            )

        return await answer(request, render)

    @get("/seasons", summary="Seasons with published shows by year, with counts")
    async def seasons(self, request: Request[Any, Any, Any]) -> Response[SeasonIndex]:
        """Every season that has a published show, newest year first."""

        async def render() -> Rendered:
            return render_json(await seasons_view())

        return await answer(request, render)

    @get("/seasons/{slug:str}", summary="One season and a page of its published shows")
    async def season(
        self,
        request: Request[Any, Any, Any],
        slug: SeasonSlug,
        after: After = None,
        limit: Limit = SEASON_PAGE,
    ) -> Response[SeasonPage]:
        """The season's published shows by designer A–Z; pass ``next_after`` back as
        ``after`` for the next ones."""

        async def render() -> Rendered:
            found = await season_view(storage_of(request), slug, after, limit)
            return render_json(found, found.newest())

        return await answer(request, render)
