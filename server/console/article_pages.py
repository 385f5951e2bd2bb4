"""``/admin/articles``: tabs by status, bulk approve/reject, the review page of one article.

The review page shows every look and detail in order; the forms post to
``/admin/articles/{id}/{action}`` with the status the page showed (``expected``), so a
decision on an article that changed meanwhile is refused instead of overwriting it.
After a decision the moderator goes on to the next pending article.
"""

from __future__ import annotations

from typing import Any

import pluggy
from litestar import Controller, Request, Response, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency

from rk.core.api.storage import Storage
from rk.core.config import Settings
from rk.server.brands import find_brand
from rk.server.console.accounts.guards import user_of
from rk.server.console.articles import TABS, list_articles
from rk.server.console.params import BadInput, Segment, Text, cursor, ids, path_id
from rk.server.console.render import admin_page, form_error, form_of, text
from rk.server.console.review import next_pending, review
from rk.server.moderation import (
    ACTIONS,
    MAX_BATCH,
    Actor,
    StaleArticle,
    UnknownArticle,
    moderate,
    summary,
)
from rk.server.platform.web.pages import redirect_with

REVIEW = "admin/article.html"


async def review_context(state: State, number: int) -> dict[str, Any]:
    """What the review page of article ``number`` shows."""
    found = await review(state.console_storage, number, state.settings.admin.duplicate_score)
    return {"article": found, "next_id": found.next_id}


def actor_of(request: Request[Any, Any, Any]) -> Actor:
    """The signed-in account as the audit log names it."""
    user = user_of(request)
    return Actor(user_id=user.id, name=user.username, via="web")


class ArticlePages(Controller):
    """The articles tabs and the review page."""

    path = "/articles"
    include_in_schema = False

    @get("/", name="admin:articles")
    async def tabs(
        self,
        request: Request[Any, Any, Any],
        state: State,
        storage: NamedDependency[Storage],
        tab: Text = None,
        brand: Text = None,
        before: Text = None,
    ) -> Response[Any]:
        """One tab of articles, newest first, with its keyset pager."""
        settings: Settings = state.settings
        tab = tab or "pending"
        if tab not in TABS:
            raise BadInput(f"tab must be one of {', '.join(TABS)}, not {tab[:40]!r}")
        found = await find_brand(brand) if brand else None
        if brand and found is None:
            raise BadInput(f"no brand {brand[:60]!r}")
        listing = await list_articles(
            storage,
            tab,
            brand_id=found.id if found else 0,
            before=cursor(before),
            limit=settings.admin.page_size,
        )
        context = {"listing": listing, "tab": tab, "brand": found, "first_page": not before}
        return admin_page(request, "admin/articles.html", context)

    @post("/bulk", name="admin:articles-bulk", status_code=303)
    async def bulk(
        self,
        request: Request[Any, Any, Any],
        state: State,
        storage: NamedDependency[Storage],
        pm: NamedDependency[pluggy.PluginManager],
    ) -> Response[Any]:
        """Approve or reject the ticked rows of a tab; bad input shows the tab again."""
        form = await form_of(request)
        tab = text(form, "tab", "pending")
        tab = tab if tab in TABS else "pending"
        brand = await find_brand(text(form, "brand")[:200]) if text(form, "brand") else None
        query = f"tab={tab}" + (f"&brand={brand.uid}" if brand else "")
        action = text(form, "action")

        async def again(message: str, status: int) -> Response[Any]:
            listing = await list_articles(
                storage,
                tab,
                brand_id=brand.id if brand else 0,
                limit=state.settings.admin.page_size,
            )
            context = {"listing": listing, "tab": tab, "brand": brand, "first_page": True}
            return form_error(request, "admin/articles.html", context, "form", message, status)

        if action not in ("publish", "reject"):
            return await again("Choose approve or reject for the selected rows.", 400)
        try:
            chosen = ids([str(value) for value in form.getall("id", [])])
        except BadInput as exc:
            return await again(f"{exc}.", 400)
        if not chosen:
            return await again("Select at least one article first.", 400)
        if len(chosen) > MAX_BATCH:
            return await again(f"At most {MAX_BATCH} articles at once.", 400)
        try:
            changes = await moderate(
                pm, chosen, action, actor_of(request), backend_url=state.backend_url
            )
        except (UnknownArticle, StaleArticle) as exc:
            return await again(f"Stopped: {exc}. Rows before it were changed.", exc.status_code)
        return redirect_with(f"/admin/articles?{query}", summary(action, changes))

    @get("/{article_id:str}", name="admin:article")
    async def article(
        self, request: Request[Any, Any, Any], article_id: Segment, state: State
    ) -> Response[Any]:
        """Every look and detail of one article, its audit and possible duplicates."""
        context = await review_context(state, path_id(article_id, "article"))
        return admin_page(request, REVIEW, context)

    @post("/{article_id:str}/{action:str}", name="admin:article-action", status_code=303)
    async def decide(
        self,
        request: Request[Any, Any, Any],
        article_id: Segment,
        action: Segment,
        pm: NamedDependency[pluggy.PluginManager],
    ) -> Response[Any]:
        """Approve, reject or delete one article, unless it changed since the page was shown."""
        number = path_id(article_id, "article")
        if action not in ACTIONS:
            raise UnknownArticle(f"no action {action[:40]!r}")
        form = await form_of(request)
        expected = text(form, "expected") or None
        here = f"/admin/articles/{number}"
        try:
            changes = await moderate(
                pm,
                [number],
                action,
                actor_of(request),
                expected,
                backend_url=request.app.state.backend_url,
            )
        except StaleArticle as exc:
            context = await review_context(request.app.state, number)
            message = f"Nothing was changed: {exc}. Look again, then decide."
            return form_error(request, REVIEW, context, "form", message, 409)
        following = await next_pending(number) if action != "delete" else None
        if text(form, "go") == "next" and following is not None:
            return redirect_with(f"/admin/articles/{following}", summary(action, changes))
        return redirect_with(here, summary(action, changes))
