"""Paths with control characters are answered 404 before any route or handler sees them.

No rk URL holds a control character, and once percent-decoded (``%00``, ``%0a``, ``%7f``,
``%c2%85``) one reaches handlers that were never meant to see it: a NUL in a ``/static``
path made the file system raise (a 500), and a newline in a logged path could forge a log
line. ``refuse_control_paths`` wraps the app's whole handler, not one route (route
middleware never sees the router's own 404s), inside the ``before_send`` hooks, so the
answer still carries the security headers.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from litestar import Request
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from rk.server.platform.http.fixed_answers import FixedAnswer
from rk.server.platform.web.errors import error_page, wants_html

log = logging.getLogger("rk.server.request")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""C0 (NUL included), DEL and C1."""
MESSAGE = "not found: the path holds a control character"
ANSWER = FixedAnswer(404, MESSAGE, [])


def has_control(path: str) -> bool:
    """Whether the decoded ``path`` holds a C0, DEL or C1 character (printable ASCII, the
    common path, is passed on two string methods without the regex)."""
    if path.isascii() and path.isprintable():
        return False
    return CONTROL.search(path) is not None


def refuse_control_paths(app: ASGIApp) -> ASGIApp:
    """Wrap ``app``: a request whose decoded path holds a control character gets a 404, a
    page for a browser asking for one, else JSON."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and has_control(scope["path"]):
            # The formatter escapes the path, so it stays one line.
            log.info("%s %s -> 404 (control character in the path)", scope["method"], scope["path"])
            request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope, receive)
            if wants_html(request):
                page = error_page(request, 404, MESSAGE)
                await page.to_asgi_response(None, request)(scope, receive, send)
                return
            await ANSWER.send(send)
            return
        await app(scope, receive, send)

    return guard
