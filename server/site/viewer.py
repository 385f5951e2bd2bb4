"""Who is looking at a public page: a visitor, or a signed-in console user.

Moderators see on the public pages what visitors never do: the similarity scores of similar
looks and the model that made them. The session cookie alone proves nothing (anyone can
send one), so the app's session check (``state.session_check``, wired by ``app``) decides;
a request without the cookie costs no look-up at all.
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from rk.server.platform.http.session_cookie import SESSION_COOKIE, SessionCheck


async def moderator_looking(request: Request[Any, Any, Any]) -> bool:
    """Whether the request comes from a live console session (any role)."""
    token = request.cookies.get(SESSION_COOKIE, "")
    check: SessionCheck | None = request.app.state.get("session_check")
    return bool(token) and check is not None and await check(token)
