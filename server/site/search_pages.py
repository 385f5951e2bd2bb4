"""The search page: one box for words, a photo upload, and "more like this" from an image.

``GET /search?q=…`` searches by words, ``GET /search?like=ID`` by a published image's
stored vector, ``POST /search`` (multipart field ``image``) by an uploaded photo. A bad
query comes back on the same page with the reason beside the box and the input kept; a
backend without a model that can do it says so plainly (503).
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import State, UploadFile
from litestar.di import NamedDependency

from rk.core.api.storage import Storage
from rk.server.deps import public_storage_dependency
from rk.server.platform.http.errors import ApiError
from rk.server.platform.http.proxies import client_address
from rk.server.similarity import PhotoGate, Refused, runtime_of
from rk.server.site.http_cache import NO_STORE, html
from rk.server.site.looks import ScoredLook
from rk.server.site.params import Like, Query, parse_id
from rk.server.site.search import (
    MAX_QUERY_CHARS,
    MAX_UPLOAD_BYTES,
    BadPicture,
    BadSearch,
    SearchOff,
    ability,
    by_picture,
    by_words,
    clean_query,
    like_image,
)
from rk.server.site.search_api import index_of


def _page(
    request: Request[Any, Any, Any],
    state: State,
    *,
    query: str = "",
    like: int = 0,
    looks: list[ScoredLook] | None = None,
    error: ApiError | None = None,
    by: str = "",
    cache_control: str | None = None,
) -> Response[bytes]:
    embedder = runtime_of(state).embedder
    context = {
        "query": query,
        "like": like,
        "looks": looks,
        "by": by,
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
    ) -> Response[bytes]:
        """The search box; results for ``q`` (words) or ``like`` (an image id)."""
        embedder = runtime_of(state).embedder
        index = index_of(state, embedder.model_id) if embedder is not None else None
        shown = (q or "")[: MAX_QUERY_CHARS * 2]
        try:
            query = clean_query(q)
            if like:
                image_id = parse_id(like.strip(), "image")
                looks = await like_image(storage, embedder, index, image_id)
                return _page(request, state, like=image_id, looks=looks, by="image")
            if not query:
                return _page(request, state)
            looks = await by_words(storage, embedder, index, query)
            return _page(request, state, query=query, looks=looks, by="words")
        except (BadSearch, SearchOff) as exc:
            return _page(request, state, query=shown, error=exc)

    @post(
        "/search",
        name="public:search-upload",
        status_code=200,
        request_max_body_size=MAX_UPLOAD_BYTES + 64 * 1024,
    )
    async def upload(
        self, request: Request[Any, Any, Any], state: State, storage: NamedDependency[Storage]
    ) -> Response[bytes]:
        """Results for an uploaded photo (multipart form field ``image``)."""
        embedder = runtime_of(state).embedder
        index = index_of(state, embedder.model_id) if embedder is not None else None
        gate: PhotoGate = state.photo_gate
        max_pixels = state.settings.search.photo_max_pixels
        try:
            with gate.admit(client_address(request)):
                data = await _upload(request)
                looks = await by_picture(storage, embedder, index, data, max_pixels)
        except (BadSearch, BadPicture, SearchOff, Refused) as exc:
            return _page(request, state, error=exc, by="picture", cache_control=NO_STORE)
        return _page(request, state, looks=looks, by="picture", cache_control=NO_STORE)


async def _upload(request: Request[Any, Any, Any]) -> bytes:
    """The bytes of form field ``image``; BadSearch when there is none."""
    if request.content_type[0] != "multipart/form-data":
        raise BadSearch("send the photo as a form upload (multipart/form-data, field 'image')")
    form = await request.form()
    upload = form.get("image")
    if not isinstance(upload, UploadFile):
        raise BadSearch("choose a photo to search with")
    return await upload.read()
