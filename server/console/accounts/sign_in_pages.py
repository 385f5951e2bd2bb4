"""Sign-in and sign-out of the console.

Each attempt takes its slot in the rate limit before its password is checked
(``sign_in_limit``: per account and address, and per address); past the limit the page
says how long to wait, with 429 and ``Retry-After``, and the password is not checked. The
client address is the peer's, or the one a trusted proxy names (``server.trusted_proxies``,
applied by uvicorn). A good password opens a new database session whose token goes into an
HttpOnly cookie, and ends the session the browser's old cookie named (a cookie planted before
sign-in is never upgraded).
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import Cookie, State
from litestar.response import Redirect

from rk.core.config import Settings
from rk.server.console.accounts.guards import (
    COOKIE_PATH,
    PUBLIC_OPT,
    SESSION_COOKIE,
    current_user,
    is_https,
    legacy_cookie_gone,
    session_cookie,
)
from rk.server.console.accounts.sessions import close_session, open_session
from rk.server.console.accounts.sign_in_limit import Limits, admit, succeeded, sweep
from rk.server.console.accounts.users import check_sign_in
from rk.server.console.params import Text
from rk.server.console.render import MAX_FIELD, admin_page, form_error, form_of, text
from rk.server.platform.http.proxies import client_address

TEMPLATE = "admin/sign_in.html"
log = logging.getLogger("rk.server.console")


def safe_next(value: str) -> str:
    """Where to go after signing in: a console path, never another site."""
    if value.startswith("/admin") and not value.startswith("//") and "\\" not in value:
        return value
    return "/admin"


def wait_words(seconds: int) -> str:
    """``4 min`` / ``40 s``: how long to wait, for people."""
    return f"{(seconds + 59) // 60} min" if seconds >= 60 else f"{seconds} s"


class SignInController(Controller):
    """``/admin/sign-in`` and ``/admin/sign-out``."""

    include_in_schema = False

    @get("/sign-in", name="admin:sign-in", opt={PUBLIC_OPT: True})
    async def form(self, request: Request[Any, Any, Any], next: Text = None) -> Response[Any]:
        """The sign-in form (straight on to ``next`` when already signed in)."""
        if current_user(request) is not None:
            return Redirect(path=safe_next(next or ""), status_code=303)
        return admin_page(
            request, TEMPLATE, {"next": safe_next(next or ""), "username": "", "errors": {}}
        )

    @post("/sign-in", name="admin:sign-in-post", status_code=303, opt={PUBLIC_OPT: True})
    async def sign_in(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Check the password (unless rate-limited) and open a session."""
        settings: Settings = state.settings
        form = await form_of(request)
        username, password = text(form, "username"), str(form.get("password", ""))
        next_url = safe_next(text(form, "next", "/admin"))
        context = {"next": next_url, "username": username[:64]}
        if not username:
            return form_error(request, TEMPLATE, context, "username", "Enter your user name.", 400)
        if not password:
            return form_error(request, TEMPLATE, context, "password", "Enter your password.", 400)
        if len(username) > MAX_FIELD or len(password) > MAX_FIELD:
            return form_error(request, TEMPLATE, context, "username", "That input is too long.")
        address, now, limits = client_address(request), state.clock(), Limits.of(settings.admin)
        wait = await admit(username, address, limits, now)
        if wait:
            log.info("sign-in of %r from %s refused for %d s", username[:64], address, wait)
            message = f"Too many failed attempts. Try again in {wait_words(wait)}."
            answer = form_error(request, TEMPLATE, context, "form", message, 429)
            answer.headers["Retry-After"] = str(wait)
            return answer
        user = await check_sign_in(username, password)
        if user is None:
            await sweep(limits, now)
            log.info("wrong password for %r from %s", username[:64], address)
            message = "Wrong user name or password."
            return form_error(request, TEMPLATE, context, "password", message, 401)
        await succeeded(username, address)
        ttl_s = settings.admin.session_ttl_s
        old_cookie = request.cookies.get(SESSION_COOKIE, "")
        token = await open_session(user, ttl_s, settings.admin.session_idle_s, old_cookie)
        cookie = session_cookie(token, ttl_s, is_https(request, settings))
        return Redirect(path=next_url, status_code=303, cookies=[cookie, legacy_cookie_gone()])

    @post("/sign-out", name="admin:sign-out", status_code=303, opt={PUBLIC_OPT: True})
    async def sign_out(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """End this browser's session."""
        await close_session(request.cookies.get(SESSION_COOKIE, ""))
        gone = Cookie(key=SESSION_COOKIE, value="", max_age=0, path=COOKIE_PATH, httponly=True)
        return Redirect(
            path="/admin/sign-in", status_code=303, cookies=[gone, legacy_cookie_gone()]
        )
