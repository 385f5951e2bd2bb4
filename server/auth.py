"""The HMAC guard of ``/admin/internal/*``: every request must be signed with the ingest secret.

The signed path is the raw request path plus ``?query`` (as ``rk.core.signing`` defines
it). Reading the body here caches it for the handler and enforces the body size limit
(413) before any work is done; a bad, missing or stale signature is a 401, and a
signature already used (a replay, by any backend process) is a 409. A route whose
``opt`` sets ``RECORDS_SIGNATURE`` records the signature itself, in the same write as its
own effect (ingest: with its job), and finds it here in ``request.state.signature``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from rk.core.signing import NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify
from rk.server.errors import ApiError

RECORDS_SIGNATURE = "records_signature"
"""Route ``opt`` key: the handler records the signature with its own write (replay → 409)."""


class ReplayedRequest(ApiError):
    """A signature that was already accepted once within its window."""

    status_code = 409

    def __init__(self) -> None:
        super().__init__(
            f"replayed request: this signature was already accepted (send a fresh"
            f" {TIMESTAMP_HEADER} or {NONCE_HEADER} with each request)"
        )


class Signature(NamedTuple):
    """A verified request signature: canonical hex, and when its window ends (unix s)."""

    hex: str
    expires_at: int


def signed_path(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The path a client signed: raw path, plus ``?query`` when there is one."""
    scope = connection.scope
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1")
    query = scope.get("query_string", b"")
    return f"{path}?{query.decode('latin-1')}" if query else path


async def hmac_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Raise SignatureError (→ 401) unless the request carries a valid, fresh signature."""
    state = connection.app.state
    body = await connection.body() if isinstance(connection, Request) else b""
    sig = connection.headers.get(SIGNATURE_HEADER)
    skew_s = state.settings.security.clock_skew_s
    timestamp = verify(
        state.secrets.ingest,
        str(connection.scope.get("method", "GET")),
        signed_path(connection),
        connection.headers.get(TIMESTAMP_HEADER),
        sig,
        body,
        nonce=connection.headers.get(NONCE_HEADER),
        skew_s=skew_s,
    )
    signed = Signature((sig or "").strip().lower(), timestamp + skew_s)
    if handler.opt.get(RECORDS_SIGNATURE):
        connection.state.signature = signed
        await state.replay_guard.sweep()
    elif not await state.replay_guard.first_use(signed.hex, signed.expires_at):
        raise ReplayedRequest()
