"""``POST /admin/internal/ingest``, served by a lean path: the busiest signed route.

Spiders post every show here, so the route skips Litestar's per-request machinery (the
Request object, the guard, kwargs and dependency resolution, the Response): the route's
own middleware ``lean_ingest`` checks the announced length (413) and the signature
headers (401) before reading anything, reads the body once under the size limit (413),
checks the signature (401), sweeps expired signatures, decodes the body once with a cached
strict decoder (400 / 422) and calls the declared handler ``ingest`` itself, then writes
the 202. It never passes the request on, so the handler runs only through it; the
handler stays a real Litestar route so that routing, the app's middleware (request id,
log line, latency metric) and the OpenAPI document treat it like every other route, and
errors are answered by the app's own exception handlers (``errors.send_error``).
``bench.ingest_cpu`` measures about a third less CPU per request than Litestar's path;
``tests/integration/server/test_ingest_answers.py`` pins that every answer is the same.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import post
from litestar.exceptions import ClientException, InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.params import JSONBody
from litestar.types import ASGIApp, Receive, Scope, Send

from rk.core.api.wire import IngestAccepted, ShowIngest
from rk.server.ingest.intake import ShowIntake
from rk.server.platform.http.errors import BadRequest, send_error
from rk.server.platform.signing.hmac_guard import (
    Signature,
    check_signature,
    check_signature_headers,
)

_DECODER = msgspec.json.Decoder(ShowIngest)
_SIGNATURE = "signature"
"""Key of the verified ``Signature`` in the request's ``scope["state"]``."""
_JSON = (b"content-type", b"application/json")


class EmptyBody(BadRequest):
    """A POST without a body; the message is the one Litestar gave for a missing ``data``."""

    def __init__(self) -> None:
        super().__init__("'data' (body data)")


def check_length(announced: str | None, limit: int) -> None:
    """413 when the announced ``Content-Length`` is over ``limit`` (400 when not a number)."""
    if announced is not None:
        try:
            length = int(announced)
        except ValueError:
            raise ClientException(f"Invalid content-length: {announced!r}") from None
        if length > limit:
            raise RequestEntityTooLarge


async def read_body(receive: Receive, announced: str | None, limit: int) -> bytes:
    """The whole body; 413 as soon as it (or its announced length) is over ``limit``."""
    check_length(announced, limit)
    chunks: list[bytes] = []
    total = 0
    while True:
        event: Any = await receive()
        if event["type"] == "http.disconnect":
            raise InternalServerException("client disconnected prematurely")
        chunk = event.get("body", b"")
        if chunk:
            total += len(chunk)
            if total > limit:
                raise RequestEntityTooLarge
            chunks.append(chunk)
        if not event.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def lean_ingest(app: ASGIApp) -> ASGIApp:
    """The route's middleware that serves it (``app``, Litestar's route, is never called)."""

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            answer = await accept(scope, receive)
        except Exception as exc:  # answered as Litestar's exception middleware would
            await send_error(scope, receive, send, exc)
            return
        length = (b"content-length", str(len(answer)).encode())
        await send({"type": "http.response.start", "status": 202, "headers": [_JSON, length]})
        await send({"type": "http.response.body", "body": answer, "more_body": False})

    return serve


async def accept(scope: Scope, receive: Receive) -> bytes:
    """The 202's body for this request, or the exception its error answer is made from."""
    state = scope["app"].state
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in reversed([*scope["headers"]])}
    limit = state.settings.server.max_body_bytes
    check_length(headers.get("content-length"), limit)
    check_signature_headers(state, headers)
    body = await read_body(receive, headers.get("content-length"), limit)
    signed = check_signature(state, scope, headers, body)
    await state.replay_guard.sweep()
    if not body:
        raise EmptyBody()
    scope.setdefault("state", {})[_SIGNATURE] = signed
    accepted = await ingest.fn(data=_DECODER.decode(body), scope=scope)
    return msgspec.json.encode(accepted)


@post(
    "/ingest",
    status_code=202,
    summary="Queue a show for ingest",
    tags=("internal",),
    middleware=[lean_ingest],
)
async def ingest(data: JSONBody[ShowIngest], scope: Scope) -> IngestAccepted:
    """Validate the show, resolve its brand and queue an ingest job; 202 with its id.

    The job and the request's signature are written together: a replay queues nothing.
    """
    intake: ShowIntake = scope["app"].state.intake
    signed: Signature = scope["state"][_SIGNATURE]
    return IngestAccepted(job_id=await intake.submit(data, signed))
