"""Cite pages, citations in each format under ``/api``, and each show's IIIF manifest.

A cite page (``/shows/{id}/cite``, ``/images/{id}/cite``) shows the three formats with
their download links; ``/api/…/cite?format=text|bibtex|csl-json`` sends one, dated the day
it was accessed (``accessed=YYYY-MM-DD`` pins the date, for a reproducible reference). They
are cheap (one published show) and dated, so they are sent fresh with an hour's caching.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.params import Parameter

from rk.core.api.storage import Storage
from rk.server.platform.http.errors import ApiError
from rk.server.site.citing.cited import Cited, cited_image, cited_show
from rk.server.site.citing.formats import FORMATS, render
from rk.server.site.citing.iiif import manifest
from rk.server.site.http_cache import html
from rk.server.site.image import Similar
from rk.server.site.params import ImageId, ShowId
from rk.server.site.views import image_view, show_view

CACHE = "public, max-age=3600"
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
IIIF_JSON = 'application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"'
Format = Annotated[str, Parameter(description="text, bibtex or csl-json", max_length=16)]
Accessed = Annotated[
    str | None, Parameter(description="the access date to print, YYYY-MM-DD", max_length=10)
]


class BadCitation(ApiError):
    """A citation format or access date rk does not know."""

    status_code = 400


def base_of(request: Request[Any, Any, Any]) -> str:
    """This site's address as visitors reach it, without a trailing slash."""
    return str(request.base_url).rstrip("/")


def accessed_on(text: str | None) -> date:
    """The ``accessed`` parameter's date, or today (UTC) when absent."""
    if text is None:
        return datetime.now(UTC).date()
    try:
        if DAY.match(text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise BadCitation(f"accessed must be a date YYYY-MM-DD, not {text[:12]!r}")


def storage_of(request: Request[Any, Any, Any]) -> Storage:
    """The public storage, as the site's pages link it."""
    storage: Storage = request.app.state.public_storage
    return storage


async def _cited(request: Request[Any, Any, Any], what: str, ident: str, when: date) -> Cited:
    """The citation of a published show or image (NotFound for anything else)."""
    if what == "show":
        return cited_show(await show_view(storage_of(request), ident), base_of(request), when)
    page = await image_view(storage_of(request), ident, Similar())
    return cited_image(page, base_of(request), when)


def _formatted(cited: Cited, name: str) -> Response[bytes]:
    """One format as a download-friendly answer."""
    if name not in FORMATS:
        raise BadCitation(f"format must be one of {', '.join(FORMATS)}, not {name[:20]!r}")
    return Response(
        render(cited, name).encode(),
        media_type=FORMATS[name],
        headers={"Cache-Control": CACHE, "Vary": "Accept-Encoding"},
    )


def _page(request: Request[Any, Any, Any], cited: Cited, api: str) -> Response[bytes]:
    """The cite page: every format, each with its download link."""
    day = cited.accessed.isoformat()
    formats = [
        (name, render(cited, name), f"{api}?format={name}&accessed={day}") for name in FORMATS
    ]
    context = {"cited": cited, "formats": formats}
    return html(request, "public/cite.html", context, cache_control=CACHE)


class CitePages(Controller):
    """Cite pages, citations and IIIF manifests of published shows and images."""

    tags = ("public",)

    @get("/shows/{show_id:str}/cite", name="public:cite-show")
    async def cite_show(
        self, request: Request[Any, Any, Any], show_id: ShowId, accessed: Accessed = None
    ) -> Response[bytes]:
        """How to cite a published show, in plain text, BibTeX and CSL-JSON."""
        cited = await _cited(request, "show", show_id, accessed_on(accessed))
        return _page(request, cited, f"/api/shows/{show_id}/cite")

    @get("/images/{image_id:str}/cite", name="public:cite-image")
    async def cite_image(
        self, request: Request[Any, Any, Any], image_id: ImageId, accessed: Accessed = None
    ) -> Response[bytes]:
        """How to cite one published look or photo."""
        cited = await _cited(request, "image", image_id, accessed_on(accessed))
        return _page(request, cited, f"/api/images/{image_id}/cite")

    @get("/api/shows/{show_id:str}/cite", name="api:cite-show")
    async def show_citation(
        self,
        request: Request[Any, Any, Any],
        show_id: ShowId,
        format: Format = "text",
        accessed: Accessed = None,
    ) -> Response[bytes]:
        """A published show's citation in one format."""
        return _formatted(await _cited(request, "show", show_id, accessed_on(accessed)), format)

    @get("/api/images/{image_id:str}/cite", name="api:cite-image")
    async def image_citation(
        self,
        request: Request[Any, Any, Any],
        image_id: ImageId,
        format: Format = "text",
        accessed: Accessed = None,
    ) -> Response[bytes]:
        """A published image's citation in one format."""
        return _formatted(await _cited(request, "image", image_id, accessed_on(accessed)), format)

    @get("/shows/{show_id:str}/manifest.json", name="public:iiif-manifest")
    async def iiif_manifest(
        self, request: Request[Any, Any, Any], show_id: ShowId
    ) -> Response[bytes]:
        """A published show as a IIIF Presentation 3 manifest, for museum and library viewers."""
        show = await show_view(storage_of(request), show_id)
        body = msgspec.json.encode(manifest(show, base_of(request)))
        headers = {"Cache-Control": CACHE, "Access-Control-Allow-Origin": "*"}
        return Response(body, media_type=IIIF_JSON, headers=headers)
