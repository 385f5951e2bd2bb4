"""``/admin/articles``: tabs by status, the start of the review queue, the review page of one
article and its side-by-side compare with a possible duplicate.

The review page shows every look and detail in order under a decision bar that stays on
screen; its forms are ``decisions``'s. ``/admin/articles/next`` opens the pending article
that has waited longest, where the queue starts.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import QueryParameter
from litestar.response import Redirect

from rk.core.api.storage import Storage
from rk.core.config import Settings
from rk.server.brands import find_brand
from rk.server.console.accounts.guards import user_of
from rk.server.console.articles import TABS, list_articles
from rk.server.console.decisions.reasons import REASONS
from rk.server.console.decisions.undo import last_decision
from rk.server.console.params import BadInput, Segment, Text, cursor, path_id
from rk.server.console.render import admin_page
from rk.server.console.review import oldest_pending, review
from rk.server.platform.web.pages import redirect_with
from rk.server.tags import tags_of

REVIEW = "admin/article.html"


async def review_context(
    request: Request[Any, Any, Any], number: int, values: dict[str, str] | None = None
) -> dict[str, Any]:
    """What the review page of article ``number`` shows; ``values``: a refused reject form."""
    state = request.app.state
    found = await review(state.console_storage, number, state.settings.admin.duplicate_score)
    return {
        "article": found,
        "next_id": found.next_id,
        "last": await last_decision(user_of(request)),
        "reasons": REASONS,
        "values": values or {"reason": "", "note": ""},
        "errors": {},
        "vocabulary": tags_of(state).vocabulary,
    }


class ArticlePages(Controller):
    """The articles tabs, the review page and the compare page."""

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
        context = {
            "listing": listing,
            "tab": tab,
            "brand": found,
            "first_page": not before,
            "last": await last_decision(user_of(request)),
        }
        return admin_page(request, "admin/articles.html", context)

    @get("/next", name="admin:review-next")
    async def next_pending(self) -> Response[Any]:
        """The pending article that has waited longest; the pending tab when none waits."""
        first = await oldest_pending()
        if first is None:
            return redirect_with("/admin/articles?tab=pending", "Nothing waits for review.", "info")
        return Redirect(path=f"/admin/articles/{first}", status_code=303)

    @get("/{article_id:str}", name="admin:article")
    async def article(self, request: Request[Any, Any, Any], article_id: Segment) -> Response[Any]:
        """Every look and detail of one article, its history and possible duplicates."""
        context = await review_context(request, path_id(article_id, "article"))
        return admin_page(request, REVIEW, context)

    @get("/{article_id:str}/compare", name="admin:article-compare")
    async def compare(
        self,
        request: Request[Any, Any, Any],
        article_id: Segment,
        state: State,
        storage: NamedDependency[Storage],
        with_id: Annotated[str | None, QueryParameter(name="with")] = None,
    ) -> Response[Any]:
        """The article beside one of its possible duplicates (``?with=ID``, else the first)."""
        score = state.settings.admin.duplicate_score
        this = await review(storage, path_id(article_id, "article"), score)
        chosen = path_id(with_id, "article") if with_id else None
        if chosen is None and this.duplicates:
            chosen = this.duplicates[0].article_id
        other = await review(storage, chosen, score) if chosen is not None else None
        match = next((d for d in this.duplicates if d.article_id == chosen), None)
        context = {"this": this, "other": other, "match": match, "threshold": score}
        return admin_page(request, "admin/compare.html", context)
