"""The one exception → response map: every error is JSON ``{"error": "<one line>"}``.

Bad input is always a 4xx: malformed JSON 400, bad signature 401, unknown route 404,
oversized body 413, a body of the wrong shape or a value the backend cannot accept 422.
Only a real server fault is a 5xx, and its details go to the log, never to the client.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import ExceptionHandlersMap, Receive, Scope, Send

from rk.core.api.errors import InvalidKey, RkError, SignatureError
from rk.core.api.wire import ErrorBody, decode_error_line
from rk.core.redact import public_message
from rk.server.platform.http.outage import RETRY_AFTER_S, is_outage
from rk.server.platform.http.request_context import CLIENT_CLOSED, client_gone
from rk.server.platform.web.errors import error_page, wants_html

log = logging.getLogger(__name__)

MAX_MESSAGE = 300


class ApiError(RkError):
    """An error a handler raises on purpose, with the HTTP status (and headers) to answer with."""

    status_code = 422
    headers: dict[str, str] | None = None


class BadRequest(ApiError):
    """The request itself is unusable: a parameter out of range, an empty body, a bad query."""

    status_code = 400


class NotFound(ApiError):
    """The addressed thing does not exist."""

    status_code = 404


class Conflict(ApiError):
    """The request clashes with the state it found (changed since, already taken, replayed)."""

    status_code = 409


class Gone(ApiError):
    """The addressed thing existed once and is no longer kept."""

    status_code = 410


class Unavailable(ApiError):
    """A dependency (database, storage) is down; the client may retry later."""

    status_code = 503


def one_line(text: str) -> str:
    """``text`` squeezed to one line of at most MAX_MESSAGE characters, with no secret or path."""
    line = " ".join(public_message(str(text)).split())
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The JSON error answer."""
    return Response(
        ErrorBody(error=one_line(message) or "error"),
        status_code=status,
        media_type=MediaType.JSON,
        headers=headers,
    )


def answer(
    request: Request[Any, Any, Any],
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    """The JSON error, or the same error as a page when a browser asked for one."""
    if wants_html(request):
        return error_page(request, status, one_line(message) or "error", headers)
    return error_response(status, message, headers)


def _validation_message(exc: ValidationException) -> str:
    extra: Any = exc.extra
    if isinstance(extra, list) and extra and isinstance(extra[0], dict):
        first = extra[0]
        where = f" ({first.get('source', 'value')} {first['key']})" if first.get("key") else ""
        return f"{first.get('message', exc.detail)}{where}"
    return exc.detail


def _validation_status(exc: ValidationException) -> int:
    """404 when a path parameter is out of range (it addresses nothing), else the given 4xx."""
    extra: Any = exc.extra
    if isinstance(extra, list) and any(
        isinstance(item, dict) and item.get("source") == "path" for item in extra
    ):
        return 404
    return exc.status_code


def _gone() -> Response:
    """The answer to a client that already left: never read, logged by the middleware as 499."""
    return error_response(CLIENT_CLOSED, "client closed the request")


def _http(request: Request, exc: HTTPException) -> Response:
    if exc.status_code >= 500 and client_gone(request.scope):
        return _gone()
    if exc.status_code >= 500:
        log.error("server error %s: %s", exc.status_code, exc.detail)
        return answer(request, exc.status_code, "internal error (see the backend log)")
    if isinstance(exc, ValidationException):
        return answer(request, _validation_status(exc), _validation_message(exc))
    return answer(request, exc.status_code, exc.detail, dict(exc.headers or {}) or None)


def _msgspec_validation(_: Request, exc: msgspec.ValidationError) -> Response:
    return error_response(422, f"invalid body: {decode_error_line(exc)}")


def _msgspec_decode(_: Request, exc: msgspec.DecodeError) -> Response:
    return error_response(400, f"body is not valid JSON: {exc}")


def _signature(_: Request, exc: SignatureError) -> Response:
    return error_response(401, str(exc))


def _invalid_key(_: Request, exc: InvalidKey) -> Response:
    return error_response(422, str(exc))


def _api(request: Request, exc: ApiError) -> Response:
    return answer(request, exc.status_code, str(exc), exc.headers)


def _unexpected(request: Request, exc: Exception) -> Response:
    if client_gone(request.scope):
        return _gone()
    if is_outage(exc):
        request.app.state.outages.seen(exc)
        retry = {"Retry-After": str(RETRY_AFTER_S)}
        return answer(request, 503, "database unavailable, retry later", retry)
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return answer(request, 500, "internal error (see the backend log)")


def exception_handlers() -> ExceptionHandlersMap:
    """The handlers to pass to ``Litestar(exception_handlers=…)``."""
    return {
        HTTPException: _http,
        msgspec.ValidationError: _msgspec_validation,
        msgspec.DecodeError: _msgspec_decode,
        SignatureError: _signature,
        InvalidKey: _invalid_key,
        ApiError: _api,
        Exception: _unexpected,
    }


_HANDLERS: dict[type[BaseException], Any] = {
    key: handler for key, handler in exception_handlers().items() if isinstance(key, type)
}


async def send_error(scope: Scope, receive: Receive, send: Send, exc: Exception) -> None:
    """Answer ``exc`` with the handler the app would pick (the closest class in its MRO).

    For code that runs in a route's own middleware, outside Litestar's exception
    middleware (``rk.server.ingest.intake_routes``), so its errors are answered exactly alike.
    """
    handler = next(_HANDLERS[cls] for cls in type(exc).__mro__ if cls in _HANDLERS)
    request = scope["app"].request_class(scope=scope, receive=receive, send=send)
    response = handler(request, exc)
    await response.to_asgi_response(app=None, request=request)(scope, receive, send)
