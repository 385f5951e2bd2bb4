"""The HMAC check of ``/admin/internal/*``: every request must be signed with the ingest secret.

The signed path is the raw request path plus ``?query`` (as ``rk.core.api.signing`` defines
it). ``hmac_guard`` guards the routes of the internal router: it checks the signature
headers (present, well formed, fresh) before reading any body, so an unsigned request is
a 401 without its body being read; reading the body then caches it for the handler and
enforces the body size limit (413) before any work is done; a bad signature is a 401, and a
signature already used (a replay, by any backend process) is a 409. ``POST ingest`` is
served outside that router by its own lean path (``rk.server.ingest.intake_routes``), which calls
``check_signature_headers`` and ``check_signature`` itself and records the signature in the
same write as its job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Scope

from rk.core.api.signing import (
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    check_headers,
    verify,
)
from rk.server.platform.http.errors import Conflict

_SIGNATURE, _TIMESTAMP, _NONCE = (
    h.lower() for h in (SIGNATURE_HEADER, TIMESTAMP_HEADER, NONCE_HEADER)
)


class ReplayedRequest(Conflict):
    """A signature that was already accepted once within its window."""

    def __init__(self) -> None:
        super().__init__(
            f"replayed request: this signature was already accepted (send a fresh"
            f" {TIMESTAMP_HEADER} or {NONCE_HEADER} with each request)"
        )


class Signature(NamedTuple):
    """A verified request signature: canonical hex, and when its window ends (unix s)."""

    hex: str
    expires_at: int


def signed_path(scope: Scope) -> str:
    """The path a client signed: raw path, plus ``?query`` when there is one."""
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1")
    query = scope.get("query_string", b"")
    return f"{path}?{query.decode('latin-1')}" if query else path


def check_signature_headers(state: State, headers: Mapping[str, str]) -> None:
    """SignatureError (→ 401) unless the signature headers are present, well formed and
    fresh: what can be refused before a body is read."""
    check_headers(
        headers.get(_TIMESTAMP),
        headers.get(_SIGNATURE),
        nonce=headers.get(_NONCE),
        skew_s=state.settings.security.clock_skew_s,
    )


def check_signature(
    state: State, scope: Scope, headers: Mapping[str, str], body: bytes
) -> Signature:
    """The request's verified signature; SignatureError (→ 401) unless valid and fresh.

    ``headers`` is looked up by lower-case name (Litestar's ``Headers`` ignores case).
    """
    sig = headers.get(_SIGNATURE)
    skew_s = state.settings.security.clock_skew_s
    timestamp = verify(
        state.secrets.ingest,
        str(scope.get("method", "GET")),
        signed_path(scope),
        headers.get(_TIMESTAMP),
        sig,
        body,
        nonce=headers.get(_NONCE),
        skew_s=skew_s,
    )
    return Signature((sig or "").strip().lower(), timestamp + skew_s)


async def hmac_guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Raise SignatureError (→ 401) unless the request carries a valid, fresh, unused signature."""
    state = connection.app.state
    check_signature_headers(state, connection.headers)
    body = await connection.body() if isinstance(connection, Request) else b""
    signed = check_signature(state, connection.scope, connection.headers, body)
    if not await state.replay_guard.first_use(signed.hex, signed.expires_at):
        raise ReplayedRequest()
