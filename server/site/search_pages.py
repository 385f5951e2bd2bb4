"""The search page: one box for words, a photo upload, a colour with its swatches, and "more
like this" from an image.

``GET /search?q=…`` searches by words, ``GET /search?like=ID`` by a published image's
stored vector (titled by that look), ``POST /search`` (multipart field ``image``) keeps an
uploaded photo (``photo_search``) and redirects (303) to ``GET /search?photo=<sha1>``,
which shows the photo and its results and can be reloaded and shared;
``/search/photos/<sha1>.jpg`` is the kept photo. A bad query comes back on the same page
with the reason beside the box and the input kept; a backend without a model that can do
it says so plainly (503). ``GET /search?colour=…`` (a name or ``#hex``, with ``q``,
``photo`` or the show filters) searches by colour (``colours.search``); every page lists
the colour facet's swatches.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import State, UploadFile
from litestar.di import NamedDependency
from litestar.params import PathParameter, QueryParameter
from litestar.response import Redirect

from rk.core.api.storage import Storage
from rk.server.colour import BadColour
from rk.server.deps import public_storage_dependency
from rk.server.platform.http.errors import ApiError, NotFound
from rk.server.platform.http.proxies import client_address
from rk.server.similarity import PhotoGate, Refused, runtime_of
from rk.server.site.colours.search import ColourSearch, colour_counts, colour_search
from rk.server.site.http_cache import NO_STORE, html
from rk.server.site.looks import ScoredLook, scored_looks
from rk.server.site.params import (
    Brand,
    City,
    Colour,
    FilterQuery,
    Kind,
    Like,
    Query,
    Season,
    Year,
    parse_id,
)
from rk.server.site.photo_search import (
    KeptPhoto,
    PhotoGone,
    keep_search_photo,
    photo_bytes,
    photo_looks,
)
from rk.server.site.search import (
    MAX_QUERY_CHARS,
    MAX_UPLOAD_BYTES,
    BadPicture,
    BadSearch,
    SearchOff,
    ability,
    by_words,
    clean_query,
    like_image,
    like_target,
)
from rk.server.site.search_api import searching
from rk.server.site.show_filters import BadFilter

Photo = Annotated[
    str | None, QueryParameter(description="A kept search photo (the SHA-1 its upload named)")
]
PHOTO_CACHE = "private, max-age=3600"


async def _page(
    request: Request[Any, Any, Any],
    state: State,
    *,
    query: str = "",
    like: ScoredLook | None = None,
    photo: KeptPhoto | None = None,
    looks: list[ScoredLook] | None = None,
    error: ApiError | None = None,
    by: str = "",
    cache_control: str | None = None,
    colour: str = "",
    found: ColourSearch | None = None,
) -> Response[bytes]:
    embedder = runtime_of(state).embedder
    context = {
        "query": query,
        "like": like,
        "photo": photo,
        "looks": looks,
        "by": by,
        "colour": colour,
        "found": found,
        "swatches": await colour_counts(),
        "error": str(error) if error else "",
        "ability": ability(embedder),
        "max_chars": MAX_QUERY_CHARS,
        "max_mb": MAX_UPLOAD_BYTES // 1024 // 1024,
    }
    status = error.status_code if error else 200
    extra = {"cache_control": cache_control} if cache_control else {}
    headers = error.headers if error else None
    return html(
        request, "public/search.html", context, status_code=status, headers=headers, **extra
    )


class SearchPages(Controller):
    """Search by words, by a photo, or by a published image."""

    include_in_schema = False
    tags = ("public",)
    dependencies = public_storage_dependency()

    @get("/search", name="public:search")
    async def search(
        self,
        request: Request[Any, Any, Any],
        state: State,
        storage: NamedDependency[Storage],
        q: Query = None,
        like: Like = None,
        photo: Photo = None,
        colour: Colour = None,
        brand: Brand = None,
        season: Season = None,
        year: Year = None,
        city: City = None,
        kind: Kind = None,
    ) -> Response[bytes]:
        """The search box and the colour swatches; results for ``q`` (words), ``like`` (an
        image id) or ``photo`` (a kept search photo), or by ``colour`` (alone, or with the
        words, the photo or the show filters)."""
        embedder, index = searching(state)
        shown = (q or "")[: MAX_QUERY_CHARS * 2]
        if colour is not None:
            filters = FilterQuery(brand=brand, season=season, year=year, city=city, kind=kind)
            return await _colour_page(request, state, storage, colour, shown, photo, filters)
        if photo is not None:
            return await _photo_page(request, state, storage, photo.strip())
        try:
            query = clean_query(q)
            if like:
                image_id = parse_id(like.strip(), "image")
                looks = await like_image(storage, embedder, index, image_id)
                target = await like_target(storage, image_id)
                return await _page(request, state, like=target, looks=looks, by="image")
            if not query:
                return await _page(request, state)
            looks = await by_words(storage, embedder, index, query)
            return await _page(request, state, query=query, looks=looks, by="words")
        except (BadSearch, SearchOff) as exc:
            return await _page(request, state, query=shown, error=exc)

    @post(
        "/search",
        name="public:search-upload",
        status_code=200,
        request_max_body_size=MAX_UPLOAD_BYTES + 64 * 1024,
    )
    async def upload(
        self, request: Request[Any, Any, Any], state: State
    ) -> Response[bytes] | Redirect:
        """Keep an uploaded photo (multipart form field ``image``) and send the visitor to
        its results' own URL (303)."""
        embedder = runtime_of(state).embedder
        gate: PhotoGate = state.photo_gate
        max_pixels = state.settings.search.photo_max_pixels
        try:
            with gate.admit(client_address(request)):
                data = await _upload(request)
                sha1 = await keep_search_photo(embedder, data, max_pixels)
        except (BadSearch, BadPicture, SearchOff, Refused) as exc:
            return await _page(request, state, error=exc, by="picture", cache_control=NO_STORE)
        return Redirect(
            f"/search?photo={sha1}", status_code=303, headers={"Cache-Control": NO_STORE}
        )

    @get("/search/photos/{name:str}", name="public:search-photo")
    async def photo(
        self, name: Annotated[str, PathParameter(description="<sha1>.jpg of a kept photo")]
    ) -> Response[bytes]:
        """The kept photo of a search by photo (re-encoded JPEG), while it is kept."""
        data = await photo_bytes(name)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": PHOTO_CACHE})


async def _photo_page(
    request: Request[Any, Any, Any], state: State, storage: Storage, sha1: str
) -> Response[bytes]:
    """The results of a kept search photo, the photo shown beside them."""
    embedder, index = searching(state)
    try:
        photo, looks = await photo_looks(storage, embedder, index, sha1)
    except (PhotoGone, SearchOff) as exc:
        return await _page(request, state, error=exc, by="picture", cache_control=NO_STORE)
    return await _page(
        request, state, photo=photo, looks=looks, by="picture", cache_control=NO_STORE
    )


async def _colour_page(
    request: Request[Any, Any, Any],
    state: State,
    storage: Storage,
    colour: str,
    query: str,
    photo: str | None,
    filters: FilterQuery,
) -> Response[bytes]:
    """The looks most of ``colour`` among what the words, photo and filters allow."""
    embedder, index = searching(state)
    shown = colour[: MAX_QUERY_CHARS // 4]
    try:
        found = await colour_search(
            storage, embedder, index, colour, q=query, photo=photo, filters=filters
        )
    except (BadColour, BadFilter, BadSearch, NotFound, PhotoGone, SearchOff) as exc:
        return await _page(request, state, query=query, error=exc, by="colour", colour=shown)
    looks = await scored_looks(storage, [(hit.image_id, hit.score) for hit in found.hits])
    return await _page(
        request,
        state,
        query=found.query,
        photo=found.photo,
        looks=looks,
        by="colour",
        colour=shown,
        found=found,
        cache_control=NO_STORE if found.photo else None,
    )


async def _upload(request: Request[Any, Any, Any]) -> bytes:
    """The bytes of form field ``image``; BadSearch when there is none."""
    if request.content_type[0] != "multipart/form-data":
        raise BadSearch("send the photo as a form upload (multipart/form-data, field 'image')")
    form = await request.form()
    upload = form.get("image")
    if not isinstance(upload, UploadFile):
        raise BadSearch("choose a photo to search with")
    return await upload.read()
