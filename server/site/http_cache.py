"""HTTP caching of public answers: ETag, Last-Modified and Cache-Control, and 304s.

The ETag is a hash of the bytes sent, so it changes exactly when the answer does: a
publish or unpublish changes the next rendered page, and with it the ETag. Pages may be
kept by a browser or a CDN for ``page_cache.MAX_AGE_S`` seconds, then must be revalidated, which
costs a 304 when nothing changed. Only ``If-None-Match`` is honoured: ``Last-Modified``
(the newest change among the articles shown) is informative, because one second is too
coarse to tell two changes apart and an unpublished article leaves no newer time behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from litestar import MediaType, Request, Response

from rk.server.site.page_cache import CACHE_CONTROL, Rendered, cached

NO_STORE = "no-store"
PRIVATE = "private, no-store"
"""A page made for one signed-in person: no shared cache keeps it, nor the browser."""


def _matches(request: Request[Any, Any, Any], etag: str) -> bool:
    header = request.headers.get("if-none-match", "")
    if not header:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in tags or etag in tags


def send(
    request: Request[Any, Any, Any],
    rendered: Rendered,
    *,
    status_code: int = 200,
    cache_control: str = CACHE_CONTROL,
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    """A rendered answer with caching headers, or an empty 304 when the client holds it.

    Typed ``Response[Any]``: the body is the encoded form of whatever the route declares
    (a page, or a Struct whose schema the OpenAPI document shows).
    """
    etag = rendered.etag
    headers = {**(headers or {}), "ETag": etag, "Cache-Control": cache_control}
    if rendered.last_modified:
        headers["Last-Modified"] = rendered.last_modified
    if rendered.vary:
        headers["Vary"] = rendered.vary
    if status_code == 200 and request.method in ("GET", "HEAD") and _matches(request, etag):
        return Response(b"", status_code=304, headers=headers)
    return Response(
        rendered.body, status_code=status_code, media_type=rendered.media_type, headers=headers
    )


async def answer(
    request: Request[Any, Any, Any],
    render: Callable[[], Awaitable[Rendered]],
    *,
    neighbours: bool = False,
) -> Response[Any]:
    """This URL's answer with caching headers: the one ``render`` made earlier while the
    change counters stand still (``page_cache``), else ``render``'s afresh."""
    return send(request, await cached(request, render, neighbours=neighbours))


def render_html(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any],
    last_modified: int = 0,
    vary: str = "",
) -> Rendered:
    """A template rendered in the shared environment (``vary``: its ``Vary`` header)."""
    engine: Any = request.app.template_engine
    text = engine.get_template(template).render(request=request, flashes=[], **context)
    return Rendered.of(text.encode(), MediaType.HTML, last_modified, vary)


def render_json(value: Any, last_modified: int = 0) -> Rendered:
    """``value`` (a Struct) as JSON."""
    return Rendered.of(msgspec.json.encode(value), MediaType.JSON, last_modified)


def html(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    cache_control: str = CACHE_CONTROL,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    """A template rendered and sent at once (pages that are not cached, e.g. search)."""
    rendered = render_html(request, template, context)
    return send(
        request, rendered, status_code=status_code, cache_control=cache_control, headers=headers
    )
