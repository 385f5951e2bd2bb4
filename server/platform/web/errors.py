"""Errors as pages for browsers, JSON for everyone else.

API clients (``/api``, the signed ``/admin/internal`` routes, ``/media``) always get the
one-line JSON error. A browser asking for an HTML page (``Accept: text/html``) gets the
same message as a page in the site's layout, with a way back, and the same status code.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.response import Template

JSON_PREFIXES = ("/api/", "/admin/internal/", "/media/", "/schema", "/static/")
TITLES = {
    400: "Bad request",
    401: "Sign-in needed",
    403: "Not allowed",
    404: "Page not found",
    405: "Not allowed",
    409: "Changed meanwhile",
    410: "Gone",
    413: "Too large",
    422: "Cannot use that input",
    429: "Too many attempts",
    503: "Temporarily unavailable",
}
PLAIN = {
    404: "There is no page at this address. It may have moved, or it was never published.",
    405: "This address does not accept that kind of request.",
}
"""Friendlier words for the framework's bare messages ("Not Found", "Method Not Allowed")."""


def wants_html(request: Request[Any, Any, Any]) -> bool:
    """True for a browser asking for a page: not an API path, and HTML accepted."""
    path = request.url.path
    if path == "/api" or path.startswith(JSON_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "")


def error_page(
    request: Request[Any, Any, Any],
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    """The error page for ``status`` with ``message``; the admin layout under ``/admin``."""
    title = TITLES.get(status, "Something went wrong" if status >= 500 else "Error")
    if status in PLAIN and message.lower() in ("not found", "method not allowed"):
        message = PLAIN[status]
    section = "admin" if request.url.path.startswith("/admin") else "public"
    return Template(
        template_name="error.html",
        context={"status": status, "title": title, "message": message, "section": section},
        status_code=status,
        headers=headers,
    )
