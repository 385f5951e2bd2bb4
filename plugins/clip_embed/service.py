"""The vision service behind ``rk vision serve``: one embedder shared by several workers.

Speaks the predecessor's protocol: ``POST /embed {"images": [base64, …]}`` →
``{"dim", "vectors", "indexes", "skipped"}``. Bad input (not JSON, wrong shape, bad
base64, too large) is a 4xx ``{"error": "..."}``; images that do not decode are listed in
``skipped`` with a 200. ``GET /health`` names the model and the active provider.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import Any

import anyio
import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.exceptions import HTTPException

from rk.core.api.embedders import Embedder
from rk.core.api.wire import ErrorBody, VisionEmbedRequest, VisionEmbedResponse, decode_error_line

log = logging.getLogger("rk.plugins.clip_embed")

# Two calls at a time: one can decode and preprocess while the other holds the model.
MODEL_CALLS = 2


class BadRequest(HTTPException):
    """A 400 with a one-line reason."""

    status_code = 400


class VisionHealth(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /health``: which model this service runs, and on what."""

    model: str
    dim: int
    provider: str
    has_text: bool


def decode_images(body: bytes) -> list[bytes]:
    """The image bytes of an ``/embed`` body; BadRequest names what is wrong."""
    if not body:
        raise BadRequest(detail='empty body; expected JSON {"images": [base64, ...]}')
    try:
        request = msgspec.json.decode(body, type=VisionEmbedRequest)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise BadRequest(detail=f"bad /embed body: {decode_error_line(exc)}") from None
    images: list[bytes] = []
    for i, text in enumerate(request.images):
        try:
            images.append(base64.b64decode(text, validate=True))
        except (binascii.Error, ValueError):
            raise BadRequest(detail=f"images[{i}] is not valid base64") from None
    return images


def _error(_: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    """Every failure as ``{"error": "..."}``: 4xx with its reason, 500 without internals."""
    if isinstance(exc, HTTPException):
        return Response(ErrorBody(error=str(exc.detail)), status_code=exc.status_code)
    log.exception("vision service failed")
    return Response(ErrorBody(error="internal error"), status_code=500)


def create_app(embedder: Embedder, *, max_body_bytes: int) -> Litestar:
    """The Litestar app serving ``embedder``; bodies over ``max_body_bytes`` get 413."""
    limiter = anyio.CapacityLimiter(MODEL_CALLS)

    @post("/embed", status_code=200)
    async def embed(request: Request[Any, Any, Any]) -> VisionEmbedResponse:
        images = decode_images(await request.body())
        result = await anyio.to_thread.run_sync(embedder.embed_images, images, limiter=limiter)
        return VisionEmbedResponse(
            dim=result.dim, vectors=result.vectors, indexes=result.indexes, skipped=result.skipped
        )

    @get("/health")
    async def health() -> VisionHealth:
        return VisionHealth(
            model=embedder.model_id,
            dim=embedder.dim,
            provider=embedder.provider,
            has_text=embedder.has_text,
        )

    return Litestar(
        route_handlers=[embed, health],
        exception_handlers={Exception: _error},
        request_max_body_size=max_body_bytes,
        debug=False,
    )
