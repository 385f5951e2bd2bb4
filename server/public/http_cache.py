"""HTTP caching of public answers: ETag, Last-Modified and Cache-Control, and 304s.

The ETag is a hash of the bytes sent, so it changes exactly when the answer does: a
publish or unpublish changes the next rendered page, and with it the ETag. Pages may be
kept by a browser or a CDN for ``MAX_AGE_S`` seconds, then must be revalidated, which
costs a 304 when nothing changed. Only ``If-None-Match`` is honoured: ``Last-Modified``
(the newest change among the articles shown) is informative, because one second is too
coarse to tell two changes apart and an unpublished article leaves no newer time behind.
"""

from __future__ import annotations

import hashlib
from email.utils import formatdate
from typing import Any

import msgspec
from litestar import MediaType, Request, Response

MAX_AGE_S = 30
CACHE_CONTROL = f"public, max-age={MAX_AGE_S}"
NO_STORE = "no-store"


def etag_of(body: bytes) -> str:
    """A strong ETag of ``body``."""
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


def _matches(request: Request[Any, Any, Any], etag: str) -> bool:
    header = request.headers.get("if-none-match", "")
    if not header:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in tags or etag in tags


def conditional(
    request: Request[Any, Any, Any],
    body: bytes,
    media_type: str,
    *,
    last_modified: int = 0,
    status_code: int = 200,
    cache_control: str = CACHE_CONTROL,
) -> Response[bytes]:
    """``body`` with caching headers, or an empty 304 when the client holds these bytes."""
    etag = etag_of(body)
    headers = {"ETag": etag, "Cache-Control": cache_control}
    if last_modified > 0:
        headers["Last-Modified"] = formatdate(last_modified, usegmt=True)
    if status_code == 200 and request.method in ("GET", "HEAD") and _matches(request, etag):
        return Response(b"", status_code=304, headers=headers)
    return Response(body, status_code=status_code, media_type=media_type, headers=headers)


def html(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any],
    *,
    last_modified: int = 0,
    status_code: int = 200,
    cache_control: str = CACHE_CONTROL,
) -> Response[bytes]:
    """A template rendered in the shared environment, sent with ``conditional``."""
    engine: Any = request.app.template_engine
    text = engine.get_template(template).render(request=request, flashes=[], **context)
    return conditional(
        request,
        text.encode(),
        MediaType.HTML,
        last_modified=last_modified,
        status_code=status_code,
        cache_control=cache_control,
    )


def json(request: Request[Any, Any, Any], value: Any, *, last_modified: int = 0) -> Response[bytes]:
    """``value`` (a Struct) as JSON, sent with ``conditional``."""
    return conditional(
        request, msgspec.json.encode(value), MediaType.JSON, last_modified=last_modified
    )
