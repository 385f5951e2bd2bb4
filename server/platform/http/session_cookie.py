"""The console's session cookie as the whole site sees it: its name, its path, who holds one.

The console signs moderators in with it (``console.accounts``). It is sent on every path,
not only ``/admin``, so that a public page can tell a signed-in moderator (who sees the
similarity scores and the model id) from a visitor: a request that carries it skips the
public page cache's fast path (``site.page_cache.serve_cached``), and is checked against the
session table before anything is shown that a visitor may not see (``moderator_looking``:
the app's ``state.session_check``, wired by ``app``, decides; the cookie alone proves
nothing, and a request without it costs no look-up at all).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from litestar import Request

SESSION_COOKIE = "rk_session"
COOKIE_PATH = "/"
LEGACY_PATH = "/admin"
"""Where the cookie lived before public pages needed it; signing in or out expires it there."""

SessionCheck = Callable[[str], Awaitable[bool]]
"""Whether a session token belongs to a live session of an enabled console account."""


def carries_session(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether raw ASGI request headers carry a session cookie (its value is not checked)."""
    marker = SESSION_COOKIE.encode() + b"="
    return any(name == b"cookie" and marker in value for name, value in headers)


async def moderator_looking(request: Request[Any, Any, Any]) -> bool:
    """Whether the request comes from a live console session (any role)."""
    token = request.cookies.get(SESSION_COOKIE, "")
    check: SessionCheck | None = request.app.state.get("session_check")
    return bool(token) and check is not None and await check(token)
