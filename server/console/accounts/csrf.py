"""The console's CSRF check: every POST carries a token bound to the browser's session.

A signed-in browser's token is an HMAC of its session token (keyed from the instance
secret), so a token from another session, or from before the sign-in that replaced the
session, is refused with 403. A signed-out browser (the sign-in form) gets a random
``rk_csrf`` cookie and a token that is the HMAC of that cookie. The token reaches a form as
``csrf_token()`` and comes back as ``_csrf_token`` or the ``x-csrf-token`` header.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from litestar import Request
from litestar.datastructures import Cookie, MutableScopeHeaders
from litestar.enums import RequestEncodingType, ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from rk.server.console.accounts.guards import SESSION_COOKIE
from rk.server.platform.http.errors import answer

CSRF_COOKIE = "rk_csrf"
CSRF_PATH = "/admin"
"""Only console forms need the signed-out browser's cookie."""
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
REFUSED = "the form's security token is missing or stale: reload the page, then retry"


def csrf_key(secret: str) -> bytes:
    """The key of console CSRF tokens, derived from the instance secret."""
    return hmac.new(secret.encode(), b"rk admin csrf", hashlib.sha256).digest()


def expected_token(key: bytes, session: str, browser: str) -> str:
    """The token a form of this browser must carry: bound to the session, else the cookie."""
    bound = f"session:{session}" if session else f"browser:{browser}"
    return hmac.new(key, bound.encode(), hashlib.sha256).hexdigest()


class ConsoleCSRF:
    """ASGI middleware of the console router: hands out and checks session-bound tokens.

    A refusal is answered here (403, page or JSON): an exception raised in a router's
    middleware would pass the request log and metrics as a 500.
    """

    def __init__(self, app: ASGIApp, key: bytes, secure: bool) -> None:
        self.app, self.key, self.secure = app, key, secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Give a safe request its token; refuse an unsafe one whose token does not match."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope, receive)
        session = request.cookies.get(SESSION_COOKIE, "")
        browser = request.cookies.get(CSRF_COOKIE, "")
        expected = expected_token(self.key, session, browser)
        if request.method in SAFE_METHODS:
            new_browser = "" if browser else secrets.token_hex(32)
            if new_browser:
                expected = expected_token(self.key, session, new_browser)
            ScopeState.from_scope(scope).csrf_token = expected
            await self.app(scope, receive, self.with_cookie(send, new_browser))
            return
        sent = await self.sent_token(request)
        if sent and hmac.compare_digest(sent, expected):
            ScopeState.from_scope(scope).csrf_token = expected
            await self.app(scope, receive, send)
            return
        refusal = answer(request, 403, REFUSED)
        await refusal.to_asgi_response(None, request)(scope, receive, send)

    @staticmethod
    async def sent_token(request: Request[Any, Any, Any]) -> str:
        """The token of the header, else of the posted form ("" when none)."""
        token = request.headers.get(CSRF_HEADER, "")
        content_type, _ = request.content_type
        if not token and content_type in (
            RequestEncodingType.URL_ENCODED,
            RequestEncodingType.MULTI_PART,
        ):
            field = (await request.form()).get("_csrf_token", "")
            token = field if isinstance(field, str) else ""
        return token[:200]

    def with_cookie(self, send: Send, browser: str) -> Send:
        """``send`` that adds the new ``rk_csrf`` cookie to the answer (when there is one)."""

        async def sending(message: Message) -> None:
            if browser and message["type"] == "http.response.start":
                cookie = Cookie(
                    key=CSRF_COOKIE,
                    value=browser,
                    path=CSRF_PATH,
                    secure=self.secure,
                    httponly=True,
                    samesite="lax",
                )
                headers = MutableScopeHeaders.from_message(message)
                headers.add("set-cookie", cookie.to_header(header=""))
            await send(message)

        return sending
