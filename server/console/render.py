"""Rendering console pages: the signed-in account in every page, form errors in place.

A form with bad input comes back as the same page with the message next to its field
and the input kept (a browser), or as the one-line JSON error (any other client), with
the same 4xx status either way.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.datastructures import FormMultiDict
from litestar.response import Template

from rk.server.console.accounts.guards import current_user
from rk.server.platform.http.errors import error_response
from rk.server.platform.web.errors import wants_html
from rk.server.platform.web.pages import FieldError, page

MAX_FIELD = 2000
"""Longer form values are refused before anything looks at them."""


def admin_page(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> Template:
    """A console page with the signed-in account as ``user``."""
    return page(
        request,
        template,
        {"user": current_user(request), **(context or {})},
        status_code=status_code,
    )


def form_error(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any],
    field: str,
    message: str,
    status_code: int = 422,
) -> Response[Any]:
    """The form's page again with ``message`` beside ``field`` (JSON for non-browsers)."""
    if not wants_html(request):
        return error_response(status_code, message)
    errors = {field or "form": message}
    return admin_page(request, template, {**context, "errors": errors}, status_code=status_code)


def field_error(
    request: Request[Any, Any, Any], template: str, context: dict[str, Any], exc: FieldError
) -> Response[Any]:
    """``form_error`` for a FieldError: its message beside its field, its status."""
    return form_error(request, template, context, exc.field, exc.message, exc.status_code)


async def form_of(request: Request[Any, Any, Any]) -> FormMultiDict:
    """The posted form (already read by the CSRF check)."""
    return await request.form()


def counted(n: int, noun: str) -> str:
    """``1 show``, ``3 shows``: a count with its noun, singular for one."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def text(form: FormMultiDict, name: str, default: str = "") -> str:
    """One field as stripped text ("" when absent)."""
    value = form.get(name, default)
    return value.strip() if isinstance(value, str) else default
