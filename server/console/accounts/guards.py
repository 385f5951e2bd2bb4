"""Who may see ``/admin``: the session guard, the admin-only guard, the session cookie.

Every console page needs a signed-in account: a signed-out request is redirected to the
sign-in page (``SignInRequired``, 303, remembering where it was going). Admin-only pages
and actions answer a moderator with 403. The signed internal API (``/admin/internal``)
is a different router with its own HMAC guard and is not touched by either.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie
from litestar.exceptions import PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.response import Redirect

from rk.core.api.errors import RkError
from rk.core.config import Settings
from rk.server.console.accounts.sessions import session_user
from rk.server.console.accounts.users import User
from rk.server.platform.http.session_cookie import COOKIE_PATH, LEGACY_PATH, SESSION_COOKIE

PUBLIC_OPT = "signed_out_ok"
"""Handlers with ``opt={PUBLIC_OPT: True}`` (sign-in) need no session."""


class SignInRequired(RkError):
    """The request has no live session; ``next`` is where to go after signing in."""

    def __init__(self, next_url: str) -> None:
        super().__init__("sign in first")
        self.next_url = next_url


def is_https(request: ASGIConnection[Any, Any, Any, Any], settings: Settings) -> bool:
    """True when the browser talks https: the request itself, or ``server.public_url``."""
    return request.url.scheme == "https" or settings.server.public_url.startswith("https:")


def session_cookie(token: str, max_age: int, secure: bool) -> Cookie:
    """The session cookie: HttpOnly, SameSite=Lax, Secure over https, on every path (public
    pages show a moderator what a visitor does not see)."""
    return Cookie(
        key=SESSION_COOKIE,
        value=token,
        max_age=max_age,
        path=COOKIE_PATH,
        httponly=True,
        samesite="lax",
        secure=secure,
    )


def legacy_cookie_gone() -> Cookie:
    """Expires a session cookie of an older release, kept for ``/admin`` only: the browser
    would send it beside the new one."""
    return Cookie(key=SESSION_COOKIE, value="", max_age=0, path=LEGACY_PATH, httponly=True)


async def is_live_session(token: str, idle_s: int) -> bool:
    """Whether ``token`` names a live session of an enabled account (a public page's check)."""
    return await session_user(token, idle_s) is not None


def current_user(connection: ASGIConnection[Any, Any, Any, Any]) -> User | None:
    """The signed-in account the guard found (None on public pages)."""
    user = connection.scope.get("state", {}).get("rk_user")
    return user if isinstance(user, User) else None


def user_of(request: Request[Any, Any, Any]) -> User:
    """The signed-in account of a guarded handler."""
    user = current_user(request)
    if user is None:
        raise SignInRequired(request.url.path)
    return user


async def signed_in(
    connection: ASGIConnection[Any, Any, Any, Any], route: BaseRouteHandler
) -> None:
    """Router guard: find the session's account, or send the browser to sign in."""
    token = connection.cookies.get(SESSION_COOKIE, "")
    idle_s = connection.app.state.settings.admin.session_idle_s
    user = await session_user(token, idle_s) if token else None
    if user is not None:
        connection.scope.setdefault("state", {})["rk_user"] = user
        return
    if route.opt.get(PUBLIC_OPT):
        return
    path = connection.url.path
    query = connection.url.query
    raise SignInRequired(path + (f"?{query}" if query else ""))


async def admin_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard of admin-only pages and actions: a moderator gets 403."""
    user = current_user(connection)
    if user is not None and not user.is_admin:
        raise PermissionDeniedException("this page is for admins; ask an admin for access")


def to_sign_in(request: Request[Any, Any, Any], exc: SignInRequired) -> Response[Any]:
    """The answer to a signed-out request: 303 to the sign-in page with ``next``."""
    target = exc.next_url if exc.next_url.startswith("/admin") else "/admin"
    return Redirect(path=f"/admin/sign-in?next={quote(target, safe='/')}", status_code=303)
