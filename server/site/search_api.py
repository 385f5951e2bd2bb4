"""The public similarity API: similar looks, text search, search by an uploaded image.

Every answer holds published images only (see ``services.search``). Queries are checked
before any model runs: an empty or overlong text, a body that is not an image, or a
model without a text tower is a one-line 4xx.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from litestar import Controller, Request, get, post
from litestar.datastructures import State, UploadFile
from litestar.di import NamedDependency
from litestar.params import Parameter
from msgspec import Struct

from rk.core.api.embedders import Embedder
from rk.core.api.errors import NoTextTower
from rk.core.api.storage import Storage
from rk.core.api.vector_indexes import VectorIndex
from rk.core.api.wire import MAX_ID
from rk.server.colour import ColourHit, ColourQuery
from rk.server.deps import public_storage_dependency
from rk.server.platform.http.errors import ApiError
from rk.server.platform.http.proxies import client_address
from rk.server.similarity import (
    ImageHit,
    ModelIndex,
    PhotoGate,
    by_vector,
    check_scope,
    runtime_of,
    similar,
    similar_within,
)
from rk.server.site.colours.search import colour_search
from rk.server.site.params import Brand, City, Colour, FilterQuery, Season, SimilarScope, Year
from rk.server.site.search import (
    MAX_QUERY_CHARS,
    MAX_UPLOAD_BYTES,
    BadSearch,
    check_picture,
    photo_vector,
)

KParam = Annotated[int, Parameter(description="How many images (1-100)", ge=1, le=100)]
PhotoParam = Annotated[
    str | None, Parameter(description="With colour: a kept search photo (its SHA-1)")
]
KindParam = Annotated[
    str | None,
    Parameter(description="Only this kind (runway, street)", pattern=r"^[a-z0-9_-]{1,32}$"),
]


class SimilarImages(Struct, frozen=True, kw_only=True):
    """Answer to ``GET /api/images/{id}/similar``."""

    image_id: int
    model: str
    items: list[ImageHit]


class SearchResults(Struct, frozen=True, kw_only=True):
    """Answer to a text or image search."""

    model: str
    items: list[ImageHit]
    query: str = ""


class ColourResults(Struct, frozen=True, kw_only=True):
    """Answer to a search by colour: ``model`` chose the candidates ("" for colour alone),
    ``colour`` is what was asked for, ``items`` say how each matched it (ΔE2000, share)."""

    model: str
    colour: ColourQuery
    items: list[ColourHit]
    query: str = ""
    photo: str = ""


class SearchController(Controller):
    """Similar looks and search over published images."""

    path = "/api"
    tags = ("search",)
    dependencies = public_storage_dependency()

    @get("/images/{image_id:int}/similar", summary="Published images most like this one")
    async def similar(
        self,
        image_id: Annotated[int, Parameter(description="A published image's id", ge=1, le=MAX_ID)],
        state: State,
        storage: NamedDependency[Storage],
        k: KParam = 20,
        scope_name: SimilarScope = "all",
    ) -> SimilarImages:
        """The published images most like a published one, best first: its stored
        neighbours (``all``), or the nearest within a scope (docs/similar-scopes.md)."""
        check_scope(scope_name)
        model = runtime_of(state).model.model_id
        if scope_name == "all":
            items = await similar(image_id, model, k, storage)
        else:
            items = await similar_within(image_id, scope_name, k, storage, index_of(state, model))
        return SimilarImages(image_id=image_id, model=model, items=items)

    @get("/search", summary="Text-to-image search, and search by colour")
    async def text(
        self,
        state: State,
        storage: NamedDependency[Storage],
        q: Annotated[str, Parameter(description="What to look for, in words")] = "",
        k: KParam = 20,
        kind: KindParam = None,
        colour: Colour = None,
        photo: PhotoParam = None,
        brand: Brand = None,
        season: Season = None,
        year: Year = None,
        city: City = None,
    ) -> SearchResults | ColourResults:
        """Published images closest to the text, through the model's text tower; with
        ``colour``, those most of that colour (alone, or among the text's or a kept photo's
        nearest, or in the shows the filters list)."""
        if colour is not None:
            embedder, index = searching(state)
            filters = FilterQuery(brand=brand, season=season, year=year, city=city, kind=kind)
            found = await colour_search(
                storage, embedder, index, colour, q=q, photo=photo, filters=filters, k=k
            )
            return ColourResults(
                model=found.model,
                colour=found.colour,
                items=found.hits,
                query=found.query,
                photo=found.photo.sha1 if found.photo else "",
            )
        query = " ".join(q.split())
        if not query:
            raise BadSearch("q is empty: say what to look for, e.g. ?q=red+leather+coat")
        if len(query) > MAX_QUERY_CHARS:
            raise BadSearch(f"q is {len(query)} characters; at most {MAX_QUERY_CHARS}")
        embedder = runtime_of(state).require()
        if not embedder.has_text:
            raise ApiError(f"model {embedder.model_id} has no text tower: text search is off")
        try:
            [vector] = await asyncio.to_thread(embedder.embed_texts, [query])
        except NoTextTower as exc:
            raise ApiError(str(exc)) from None
        items = await by_vector(vector, k, storage, index_of(state, embedder.model_id), kind)
        return SearchResults(model=embedder.model_id, items=items, query=query)

    @post(
        "/search/image",
        status_code=200,
        summary="Search by an uploaded image",
        request_max_body_size=MAX_UPLOAD_BYTES,
    )
    async def image(
        self,
        request: Request,
        state: State,
        storage: NamedDependency[Storage],
        k: KParam = 20,
        kind: KindParam = None,
    ) -> SearchResults:
        """Published images closest to the uploaded one: a raw image body, or the form
        field ``image`` of a multipart upload."""
        gate: PhotoGate = state.photo_gate
        max_pixels = state.settings.search.photo_max_pixels
        with gate.admit(client_address(request)):
            data = await _upload(request)
            check_picture(data, max_pixels)
            embedder = runtime_of(state).require()
            vector = await asyncio.to_thread(photo_vector, embedder, data, max_pixels)
        index = index_of(state, embedder.model_id)
        items = await by_vector(vector, k, storage, index, kind)
        return SearchResults(model=embedder.model_id, items=items)


def index_of(state: State, model: str) -> ModelIndex:
    """``model``'s view of the app's vector index (opened by the embedding lifespan)."""
    index = state.get("vector_index")
    if not isinstance(index, VectorIndex):
        raise RuntimeError("the vector index is opened by embedding_lifespan")
    return ModelIndex(index, model)


def searching(state: State) -> tuple[Embedder | None, ModelIndex | None]:
    """The backend's embedder and its model's view of the vector index, for a search that
    can go on without them (None, None when the backend has no model)."""
    embedder = runtime_of(state).embedder
    return embedder, index_of(state, embedder.model_id) if embedder is not None else None


async def _upload(request: Request) -> bytes:
    """The uploaded image's bytes; BadSearch when there are none."""
    if request.content_type[0] == "multipart/form-data":
        form = await request.form()
        upload = form.get("image")
        if not isinstance(upload, UploadFile):
            raise BadSearch("multipart upload has no file field named 'image'")
        data = await upload.read()
    else:
        data = await request.body()
    if not data:
        raise BadSearch("empty upload: send the image as the body or as form field 'image'")
    return data
