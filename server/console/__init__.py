"""rk.server.console: the moderation console under ``/admin``.

One Litestar router: every page needs a session (``accounts.guards.signed_in``), every POST a CSRF
token bound to that session (``accounts.csrf.ConsoleCSRF`` on this router only, so the public site
and the signed spider API are untouched), admin-only controllers add ``accounts.guards.admin_only``.
Handlers are thin: they read the form, call the console's services and render
``templates/admin``; no SQL here.
"""

from __future__ import annotations

from litestar import Router
from litestar.middleware import DefineMiddleware

from rk.core.config import Settings
from rk.server.console.accounts.csrf import ConsoleCSRF, csrf_key
from rk.server.console.accounts.guards import (
    SignInRequired,
    is_live_session,
    signed_in,
    to_sign_in,
)
from rk.server.deps import console_storage_dependency
from rk.server.platform.http.session_cookie import SessionCheck


def session_check(settings: Settings) -> SessionCheck:
    """Whether a session token is a live console session, for the public pages' moderator
    view (``state.session_check``)."""
    idle_s = settings.admin.session_idle_s

    async def check(token: str) -> bool:
        return await is_live_session(token, idle_s)

    return check


def admin_router(settings: Settings, secret: str) -> Router:
    """The console's router, for ``routes.all_routes``."""
    from rk.server.console.accounts.account_pages import AccountPage
    from rk.server.console.accounts.sign_in_pages import SignInController
    from rk.server.console.accounts.user_pages import AuditPage, UserPages
    from rk.server.console.article_pages import ArticlePages
    from rk.server.console.brand_pages import BrandPages
    from rk.server.console.crawl_pages import CrawlPages
    from rk.server.console.dashboard_page import DashboardPage
    from rk.server.console.decisions.decision_pages import DecisionPages
    from rk.server.console.decisions.tag_pages import TagDecisionPages
    from rk.server.console.job_pages import JobPages
    from rk.server.console.media_preview import ConsoleMedia

    secure = settings.server.public_url.startswith("https:")

    return Router(
        "/admin",
        route_handlers=[
            SignInController,
            DashboardPage,
            ArticlePages,
            DecisionPages,
            TagDecisionPages,
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
