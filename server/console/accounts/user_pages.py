"""``/admin/users`` (admins): accounts, adding one, changing a role, disabling, setting
another account's password (which ends that account's sessions); ``/admin/audit``
(everyone signed in): every moderation decision, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.types import Guard

from rk.server.console.accounts.guards import admin_only, user_of
from rk.server.console.accounts.users import (
    UserInputError,
    create_user,
    list_users,
    set_disabled,
    set_password,
    set_role,
)
from rk.server.console.params import BadInput, Segment, Text, cursor
from rk.server.console.render import MAX_FIELD, admin_page, field_error, form_error, form_of, text
from rk.server.console.review import audit_log
from rk.server.platform.web.pages import FieldError, redirect_with

TEMPLATE = "admin/users.html"


class UserPages(Controller):
    """Accounts of the console."""

    path = "/users"
    include_in_schema = False
    guards: Sequence[Guard] | None = (admin_only,)

    async def context(self, values: dict[str, str]) -> dict[str, Any]:
        return {
            "users": await list_users(),
            "values": {"username": "", "role": "moderator", **values},
            "errors": {},
        }

    @get("/", name="admin:users")
    async def users(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """Every account with its role and last sign-in."""
        return admin_page(request, TEMPLATE, await self.context({}))

    @post("/add", name="admin:user-add", status_code=303)
    async def add(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """Create an account."""
        form = await form_of(request)
        name, role = text(form, "username")[:MAX_FIELD], text(form, "role")[:40]
        password = str(form.get("password", ""))[: MAX_FIELD + 1]
        try:
            user = await create_user(name, password, role)
        except UserInputError as exc:
            context = await self.context({"username": name, "role": role})
            return field_error(request, TEMPLATE, context, FieldError(exc.field, exc))
        return redirect_with("/admin/users", f"Created {user.role} {user.username}.")

    @post("/{name:str}/{action:str}", name="admin:user-action", status_code=303)
    async def act(
        self, request: Request[Any, Any, Any], name: Segment, action: Segment
    ) -> Response[Any]:
        """Make an account admin or moderator, disable or enable it, set its password."""
        me = user_of(request)
        if action == "password":
            return await self.reset_password(request, name, me.username)
        if name == me.username and action in ("disable", "moderator"):
            context = await self.context({})
            message = "You cannot disable or demote your own account; ask another admin."
            return form_error(request, TEMPLATE, context, "form", message, 409)
        if action in ("admin", "moderator"):
            user = await set_role(name, action)
            return redirect_with("/admin/users", f"{user.username} is now {user.role}.")
        if action in ("disable", "enable"):
            user = await set_disabled(name, action == "disable")
            return redirect_with("/admin/users", f"{action.capitalize()}d {user.username}.")
        raise BadInput(f"no action {action[:40]!r} for an account")

    async def reset_password(
        self, request: Request[Any, Any, Any], name: str, me: str
    ) -> Response[Any]:
        """Give another account a new password; every session of that account ends."""
        if name == me:
            context = await self.context({})
            message = "Change your own password under Your account (it asks for the current one)."
            return form_error(request, TEMPLATE, context, "form", message, 409)
        form = await form_of(request)
        try:
            user = await set_password(name, str(form.get("password", ""))[: MAX_FIELD + 1])
        except UserInputError as exc:
            context = await self.context({})
            return field_error(request, TEMPLATE, context, FieldError("form", exc))
        return redirect_with("/admin/users", f"New password set for {user.username}; signed out.")


class AuditPage(Controller):
    """The moderation audit log."""

    path = "/audit"
    include_in_schema = False

    @get("/", name="admin:audit")
    async def audit(self, request: Request[Any, Any, Any], before: Text = None) -> Response[Any]:
        """Every status change, newest first, a keyset page at a time."""
        entries, next_before = await audit_log(cursor(before))
        context = {"entries": entries, "next_before": next_before, "first_page": not before}
        return admin_page(request, "admin/audit.html", context)
