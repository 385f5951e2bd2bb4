"""rk.server.admin: the moderation console under ``/admin``.

One Litestar router: every page needs a session (``auth.signed_in``), every POST a CSRF
token bound to that session (``csrf.ConsoleCSRF`` on this router only, so the public site
and the signed spider API are untouched), admin-only controllers add ``auth.admin_only``.
Handlers are thin: they read the form, call ``rk.server.services`` and render
``templates/admin``; no SQL here.
"""

from __future__ import annotations

from litestar import Router
from litestar.middleware import DefineMiddleware

from rk.core.config import Settings
from rk.server.admin.auth import SignInRequired, signed_in, to_sign_in
from rk.server.admin.csrf import ConsoleCSRF, csrf_key
from rk.server.deps import console_storage_dependency


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

    secure = settings.server.public_url.startswith("https:")

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
        middleware=[DefineMiddleware(ConsoleCSRF, key=csrf_key(secret), secure=secure)],
        exception_handlers={SignInRequired: to_sign_in},
        include_in_schema=False,
    )
