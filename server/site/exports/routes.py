"""Export routes: a filtered listing or a search result as a ZIP or a contact sheet.

``/export.zip`` and ``/contact-sheet`` take the listing's filters (as ``/`` does);
``/search/export.zip`` and ``/search/contact-sheet`` take a search (``q``, ``like`` or
``colour``, as ``/search`` does). ``rendition`` picks the images' size, ``paper`` the
sheet's (A4 or Letter). At most ``MAX_ITEMS`` images; only published ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any
from urllib.parse import urlencode

from litestar import Request, Response, Router, get
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import Parameter
from litestar.response import Stream
from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.deps import public_storage_dependency
from rk.server.platform.http.errors import BadRequest
from rk.server.site.colours.search import colour_search
from rk.server.site.exports.items import MAX_ITEMS, RENDITIONS, ExportItem, export_items
from rk.server.site.exports.zipped import zip_stream
from rk.server.site.http_cache import html
from rk.server.site.params import QUERIES, Colour, FilterQuery, Like, Query, parse_id
from rk.server.site.repository.images import filtered_image_ids
from rk.server.site.search import by_words, clean_query, like_image
from rk.server.site.search_api import searching
from rk.server.site.show_filters import parse_filters

Rendition = Annotated[
    str, Parameter(description="360, 560, 640, 800, 1200, 1600 or original", max_length=8)
]
Paper = Annotated[str, Parameter(description="a4 or letter", max_length=8)]
PAPERS = ("a4", "letter")
CACHE = "private, max-age=600"


def _checked(rendition: str, paper: str) -> None:
    """BadRequest for a size or paper rk does not offer."""
    if rendition not in RENDITIONS:
        raise BadRequest(
            f"rendition must be one of {', '.join(RENDITIONS)}, not {rendition[:12]!r}"
        )
    if paper not in PAPERS:
        raise BadRequest(f"paper must be a4 or letter, not {paper[:12]!r}")


def _base(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url).rstrip("/")


async def _listing(filter_query: FilterQuery) -> tuple[list[int], str]:
    """The images of the published shows the filters list, newest first, and a title."""
    filters = await parse_filters(filter_query)
    ids = await filtered_image_ids(filters, MAX_ITEMS)
    kind = {"runway": "Runway", "street": "Street style"}.get(filters.kind, "")
    year = str(filter_query.year or "")
    named = [v for v in (filters.brand_name, filters.season, year, filters.city, kind) if v]
    return ids, " · ".join(named) or "Every published show"


async def _search(state: State, storage: Storage, wanted: SearchQuery) -> tuple[list[int], str]:
    """The images a search finds, best first, and a title naming the search."""
    q, like, colour = wanted.q, wanted.like, wanted.colour
    embedder, index = searching(state)
    if colour:
        found = await colour_search(storage, embedder, index, colour, q=q, k=MAX_ITEMS)
        named = found.colour.name or found.colour.hex
        return [hit.image_id for hit in found.hits], f"Colour: {named}"
    if like:
        image_id = parse_id(like.strip(), "image")
        looks = await like_image(storage, embedder, index, image_id)
        return [look.picture.image_id for look in looks], f"Looks like image {image_id}"
    query = clean_query(q)
    if not query:
        raise BadRequest("give q (words), like (an image id) or colour")
    looks = await by_words(storage, embedder, index, query)
    return [look.picture.image_id for look in looks], f"Search: {query}"


def _zip(storage: Storage, items: list[ExportItem], title: str, url: str) -> Stream:
    """The ZIP answer, streamed, named for download."""
    headers = {
        "Content-Disposition": 'attachment; filename="rk-export.zip"',
        "Cache-Control": CACHE,
    }
    return Stream(
        zip_stream(storage, items, title, url), media_type="application/zip", headers=headers
    )


def _sheet(
    request: Request[Any, Any, Any], items: list[ExportItem], title: str, paper: str
) -> Response[bytes]:
    """The printable contact sheet, with links back and to the other paper size."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "paper"]
    back = "/search" if request.url.path.startswith("/search") else "/"
    papers = {p: f"{request.url.path}?{urlencode([*params, ('paper', p)])}" for p in PAPERS}
    context = {
        "items": items,
        "title": title,
        "paper": paper,
        "papers": papers,
        "back": back + (f"?{urlencode(params)}" if params else ""),
        "url": f"{_base(request)}{back}" + (f"?{urlencode(params)}" if params else ""),
    }
    return html(request, "public/contact_sheet.html", context, cache_control=CACHE)


class SearchQuery(Struct, frozen=True, kw_only=True):
    """The search an export repeats, as ``/search`` takes it."""

    q: Query = None
    like: Like = None
    colour: Colour = None


Found = Callable[[], Awaitable[tuple[list[int], str]]]
"""Finds the images to export, in order, and the export's title (called once checked)."""


async def zip_of(
    request: Request[Any, Any, Any], storage: Storage, found: Found, rendition: str
) -> Stream:
    """``found``'s images at ``rendition`` as a ZIP (the size checked first)."""
    _checked(rendition, "a4")
    ids, title = await found()
    items = await export_items(storage, ids, rendition, _base(request))
    return _zip(storage, items, title, str(request.url))


async def sheet_of(
    request: Request[Any, Any, Any], storage: Storage, found: Found, paper: str
) -> Response[bytes]:
    """``found``'s images as a contact sheet on ``paper`` (checked first)."""
    _checked("640", paper)
    ids, title = await found()
    return _sheet(request, await export_items(storage, ids, "360", _base(request)), title, paper)


def _listing_found(filter_query: NamedDependency[FilterQuery]) -> Found:
    """The images the listing's filters give, found when called."""
    return lambda: _listing(filter_query)


def _search_found(
    state: State, storage: NamedDependency[Storage], search_query: NamedDependency[SearchQuery]
) -> Found:
    """The images the search finds, found when called."""
    return lambda: _search(state, storage, search_query)


async def _zip_route(
    request: Request[Any, Any, Any],
    storage: NamedDependency[Storage],
    found: NamedDependency[Found],
    rendition: Rendition = "640",
) -> Stream:
    """The found images (a listing's newest first, a search's best first) as a ZIP with
    their credits."""
    return await zip_of(request, storage, found, rendition)


async def _sheet_route(
    request: Request[Any, Any, Any],
    storage: NamedDependency[Storage],
    found: NamedDependency[Found],
    paper: Paper = "a4",
) -> Response[bytes]:
    """The found images as a printable contact sheet."""
    return await sheet_of(request, storage, found, paper)


SOURCES = (("", "listing", _listing_found), ("/search", "search", _search_found))
"""Where each export's images come from: its path prefix, its name, its ``found``."""


def export_routes() -> Router:
    """``/export.zip`` and ``/contact-sheet`` of each source, each reading its ``found``."""
    handlers = []
    for prefix, name, source in SOURCES:
        found = {"found": Provide(source, sync_to_thread=False)}
        zipped = get(f"{prefix}/export.zip", name=f"public:export-{name}", dependencies=found)
        sheet = get(f"{prefix}/contact-sheet", name=f"public:sheet-{name}", dependencies=found)
        handlers += [zipped(_zip_route), sheet(_sheet_route)]
    return Router(
        "/",
        route_handlers=handlers,
        include_in_schema=False,
        tags=["public"],
        dependencies={
            **QUERIES,
            **public_storage_dependency(),
            "search_query": Provide(SearchQuery, sync_to_thread=False),
        },
    )
