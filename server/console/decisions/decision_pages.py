"""``POST /admin/articles/…``: the decisions of the review flow.

- ``/{id}/{action}`` approves, rejects (with a reason) or deletes one article, unless it
  changed since the page was shown (``expected``: then 409 and nothing changes); with
  ``go=next`` the moderator goes on to the next pending article.
- ``/bulk`` decides the ticked rows of a tab in two steps that need no JavaScript: the
  first post answers with a confirmation (how many, the first titles, a reason for a
  rejection), the second (``confirm=yes``) decides.
- ``/undo`` reverses the session's last decision.
"""

from __future__ import annotations

from typing import Any

import pluggy
from litestar import Controller, Request, Response, post
from litestar.datastructures import FormMultiDict, State
from litestar.di import NamedDependency

from rk.core.api.storage import Storage
from rk.server.brands import find_brand
from rk.server.console.accounts.guards import user_of
from rk.server.console.article_pages import REVIEW, review_context
from rk.server.console.articles import TABS, list_articles
from rk.server.console.decisions.batch import read_batch
from rk.server.console.decisions.reasons import REASONS, rejection_reason
from rk.server.console.decisions.undo import undo
from rk.server.console.params import Segment, path_id
from rk.server.console.render import admin_page, field_error, form_error, form_of, text
from rk.server.console.review import next_pending
from rk.server.moderation import (
    ACTIONS,
    Actor,
    Record,
    StaleArticle,
    UnknownArticle,
    moderate,
    summary,
)
from rk.server.platform.web.pages import FieldError, redirect_with

CONFIRM = "admin/confirm.html"


def actor_of(request: Request[Any, Any, Any]) -> Actor:
    """The signed-in account as the audit log names it."""
    user = user_of(request)
    return Actor(user_id=user.id, name=user.username, via="web")


def reason_of(form: FormMultiDict, action: str) -> str:
    """The reason a rejection is recorded with ("" for other actions); FieldError."""
    if action != "reject":
        return ""
    return rejection_reason(text(form, "reason"), text(form, "note"))


def typed(form: FormMultiDict) -> dict[str, str]:
    """The reason fields as the moderator typed them (to put back in a refused form)."""
    return {"reason": text(form, "reason")[:40], "note": text(form, "note")[:400]}


class DecisionPages(Controller):
    """The decision forms of the review page, the bulk bar and the undo bar."""

    path = "/articles"
    include_in_schema = False

    @post("/bulk", name="admin:articles-bulk", status_code=303)
    async def bulk(
        self,
        request: Request[Any, Any, Any],
        state: State,
        storage: NamedDependency[Storage],
        pm: NamedDependency[pluggy.PluginManager],
    ) -> Response[Any]:
        """Confirm, then approve or reject, the ticked rows; bad input shows the tab again."""
        form = await form_of(request)
        tab = text(form, "tab", "pending")
        tab = tab if tab in TABS else "pending"
        brand = await find_brand(text(form, "brand")[:200]) if text(form, "brand") else None
        back = f"/admin/articles?tab={tab}" + (f"&brand={brand.uid}" if brand else "")

        async def again(message: str, status: int) -> Response[Any]:
            listing = await list_articles(
                storage,
                tab,
                brand_id=brand.id if brand else 0,
                limit=state.settings.admin.page_size,
            )
            context = {"listing": listing, "tab": tab, "brand": brand, "first_page": True}
            return form_error(request, "admin/articles.html", context, "form", message, status)

        try:
            batch = await read_batch(form)
        except FieldError as exc:
            return await again(exc.message, exc.status_code)
        context = {"batch": batch, "tab": tab, "brand": brand, "back": back, "reasons": REASONS}
        if text(form, "confirm") != "yes":
            values = {"reason": "", "note": ""}
            return admin_page(request, CONFIRM, {**context, "values": values, "errors": {}})
        try:
            reason = reason_of(form, batch.action)
        except FieldError as exc:
            return field_error(request, CONFIRM, {**context, "values": typed(form)}, exc)
        try:
            changes = await moderate(
                pm,
                batch.ids,
                batch.action,
                actor_of(request),
                backend_url=state.backend_url,
                record=Record(reason=reason),
            )
        except (UnknownArticle, StaleArticle) as exc:
            return await again(f"Stopped: {exc}. Rows before it were changed.", exc.status_code)
        return redirect_with(back, summary(batch.action, changes))

    @post("/undo", name="admin:articles-undo", status_code=303)
    async def undo_last(
        self, request: Request[Any, Any, Any], pm: NamedDependency[pluggy.PluginManager]
    ) -> Response[Any]:
        """Reverse the session's last decision and show its article again."""
        form = await form_of(request)
        audit_id = path_id(text(form, "audit") or "0", "decision")
        last = await undo(pm, user_of(request), audit_id, request.app.state.backend_url)
        return redirect_with(
            f"/admin/articles/{last.article_id}",
            f"Undone: {last.title} is {last.old_status} again.",
        )

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
        try:
            reason = reason_of(form, action)
        except FieldError as exc:
            context = await review_context(request, number, typed(form))
            return field_error(request, REVIEW, context, exc)
        try:
            changes = await moderate(
                pm,
                [number],
                action,
                actor_of(request),
                text(form, "expected") or None,
                backend_url=request.app.state.backend_url,
                record=Record(reason=reason),
            )
        except StaleArticle as exc:
            context = await review_context(request, number)
            message = f"Nothing was changed: {exc}. Look again, then decide."
            return form_error(request, REVIEW, context, "form", message, 409)
        following = await next_pending(number) if action != "delete" else None
        if text(form, "go") == "next" and following is not None:
            return redirect_with(f"/admin/articles/{following}", summary(action, changes))
        return redirect_with(f"/admin/articles/{number}", summary(action, changes))
