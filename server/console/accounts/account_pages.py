"""``/admin/account``: the signed-in account changes its own password.

The current password is asked for, so a session left open cannot lock its owner out; the
check takes a slot in the sign-in limit (``sign_in_limit``, the same counters as the sign-in
page), so a stolen session cannot guess the password faster than the sign-in page allows. A
change ends every session of the account, this one included, and hands this browser a
new session at once: other browsers are signed out, this one stays signed in.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import State

from rk.core.config import Settings
from rk.server.console.accounts.guards import is_https, session_cookie, user_of
from rk.server.console.accounts.sessions import open_session
from rk.server.console.accounts.sign_in_limit import Limits, admit, succeeded
from rk.server.console.accounts.sign_in_pages import wait_words
from rk.server.console.accounts.users import UserInputError, change_own_password
from rk.server.console.render import MAX_FIELD, admin_page, field_error, form_error, form_of
from rk.server.platform.http.proxies import client_address
from rk.server.platform.web.pages import FieldError, redirect_with

TEMPLATE = "admin/account.html"


class AccountPage(Controller):
    """The signed-in account's own settings."""

    path = "/account"
    include_in_schema = False

    @get("/", name="admin:account")
    async def account(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """The change-password form."""
        return admin_page(request, TEMPLATE, {"errors": {}})

    @post("/password", name="admin:account-password", status_code=303)
    async def change_password(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Check the current password, set the new one, sign out every other browser."""
        settings: Settings = state.settings
        me, form = user_of(request), await form_of(request)
        current = str(form.get("current", ""))[: MAX_FIELD + 1]
        new = str(form.get("password", ""))[: MAX_FIELD + 1]
        address, limits = client_address(request), Limits.of(settings.admin)
        wait = await admit(me.username, address, limits, state.clock())
        if wait:
            message = f"Too many failed attempts. Try again in {wait_words(wait)}."
            answer = form_error(request, TEMPLATE, {}, "current", message, 429)
            answer.headers["Retry-After"] = str(wait)
            return answer
        try:
            await change_own_password(me, current, new)
        except UserInputError as exc:
            if exc.field != "current":
                await succeeded(me.username, address)
            return field_error(request, TEMPLATE, {}, FieldError(exc.field, exc))
        await succeeded(me.username, address)
        ttl_s = settings.admin.session_ttl_s
        token = await open_session(me, ttl_s, settings.admin.session_idle_s)
        secure = is_https(request, settings)
        message = "Password changed; your other sessions ended."
        answer = redirect_with("/admin/account", message, secure=secure)
        answer.set_cookie(session_cookie(token, ttl_s, secure))
        return answer
