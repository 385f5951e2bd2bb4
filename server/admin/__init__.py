"""rk.server.admin: the moderation console under ``/admin``.

One Litestar router: every page needs a session (``auth.signed_in``), every POST a CSRF
token (Litestar's ``CSRFMiddleware`` on this router only, so the public site and the
signed spider API are untouched), admin-only controllers add ``auth.admin_only``.
Handlers are thin: they read the form, call ``rk.server.services`` and render
``templates/admin``; no SQL here.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from litestar import Request, Router
from litestar.config.csrf import CSRFConfig
from litestar.exceptions import PermissionDeniedException
from litestar.middleware import DefineMiddleware
from litestar.middleware.csrf import CSRFMiddleware
from litestar.types import Receive, Scope, Send

from rk.core.config import Settings
from rk.server.admin.auth import COOKIE_PATH, SignInRequired, signed_in, to_sign_in
from rk.server.deps import console_storage_dependency
from rk.server.errors import answer

CSRF_COOKIE = "rk_csrf"
CSRF_HEADER = "x-csrf-token"


class ConsoleCSRF(CSRFMiddleware):
    """Litestar's CSRF check, answering a failed check itself (403, page or JSON).

    The stock middleware raises, and an exception raised in a router's middleware passes
    the request log and metrics as a 500 before the app turns it into a 403.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the check; a refusal becomes the 403 answer here."""
        try:
            await super().__call__(scope, receive, send)
        except PermissionDeniedException:
            request: Request[Any, Any, Any] = scope["litestar_app"].request_class(
                scope=scope, receive=receive
            )
            message = "the form's security token is missing or stale: reload the page, then retry"
            response = answer(request, 403, message)
            await response.to_asgi_response(None, request)(scope, receive, send)


def csrf_config(settings: Settings, secret: str) -> CSRFConfig:
    """The console's CSRF check: a signed double-submit cookie, only under /admin."""
    return CSRFConfig(
        secret=hmac.new(secret.encode(), b"rk admin csrf", hashlib.sha256).hexdigest(),
        cookie_name=CSRF_COOKIE,
        cookie_path=COOKIE_PATH,
        header_name=CSRF_HEADER,
        cookie_secure=settings.server.public_url.startswith("https:"),
        cookie_httponly=True,
        cookie_samesite="lax",
    )


def admin_router(settings: Settings, secret: str) -> Router:
    """The console's router, for ``routes.all_routes``."""
    from rk.server.admin.account import AccountPage
    from rk.server.admin.articles import ArticlePages
    from rk.server.admin.brands import BrandPages
    from rk.server.admin.crawl import CrawlPages
    from rk.server.admin.dashboard import DashboardPage
    from rk.server.admin.jobs import JobPages
    from rk.server.admin.media import ConsoleMedia
    from rk.server.admin.sign_in import SignInController
    from rk.server.admin.users import AuditPage, UserPages

    return Router(
        "/admin",
        route_handlers=[
            SignInController,
            DashboardPage,
            ArticlePages,
            CrawlPages,
            BrandPages,
            JobPages,
            UserPages,
            AuditPage,
            AccountPage,
            ConsoleMedia,
        ],
        guards=[signed_in],
        dependencies=console_storage_dependency(),
        middleware=[DefineMiddleware(ConsoleCSRF, config=csrf_config(settings, secret))],
        exception_handlers={SignInRequired: to_sign_in},
        include_in_schema=False,
    )
