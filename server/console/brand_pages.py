"""``/admin/brands`` (admins): find and add brands, edit one, queue its crawl, its history.

``/admin/brands/search`` (any signed-in account) answers the brand fields'
search-as-you-type with a short JSON list of names.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import FormMultiDict, State
from litestar.di import NamedDependency, Provide

from rk.core.api.storage import Storage
from rk.core.api.wire import BrandInfo
from rk.server.brands import BrandInputError, add_brand, brand_info, clean_name
from rk.server.console.accounts.guards import admin_only
from rk.server.console.articles import recent_articles, tab_counts
from rk.server.console.brands import (
    brand_history,
    clean_slugs,
    list_brand_page,
    search_names,
    update_brand,
)
from rk.server.console.crawl_pages import crawl_tasks, default_source, sources_of
from rk.server.console.params import BadInput, Segment, Text, count
from rk.server.console.render import MAX_FIELD, admin_page, counted, field_error, form_of, text
from rk.server.platform.http.errors import NotFound
from rk.server.platform.web.pages import FieldError, field, redirect_with

LIST = "admin/brands.html"
PAGE = "admin/brand.html"


def brand_form(
    form: FormMultiDict, sources: list[str]
) -> tuple[str, dict[str, str], dict[str, str]]:
    """A brand form's name, its ``slug_<source>`` fields by source, and every field as
    typed (to put back in the page when it comes back with an error)."""
    slugs = {source: text(form, f"slug_{source}")[:MAX_FIELD] for source in sources}
    name = text(form, "name")[:MAX_FIELD]
    return name, slugs, {"name": name, **{f"slug_{s}": v for s, v in slugs.items()}}


def checked_brand(
    name: str, slugs: dict[str, str], sources: list[str]
) -> tuple[str, dict[str, str]]:
    """A brand form's cleaned name and slugs; FieldError naming the field that is wrong."""
    with field("name", BrandInputError):
        name = clean_name(name)
    with field("slugs", BrandInputError):
        return name, clean_slugs(slugs, sources)


async def brand_of(uid: Segment) -> BrandInfo:
    """The brand named by the path's uid (``found``); NotFound (a 404 page) otherwise."""
    found = await brand_info(uid[:64]) if uid else None
    if found is None:
        raise NotFound(f"no brand {uid[:40]!r}")
    return found


class BrandPages(Controller):
    """The brands list and a brand's page."""

    path = "/brands"
    include_in_schema = False
    dependencies = {"found": Provide(brand_of)}

    async def list_context(
        self, state: State, q: str, after: str | None, values: dict[str, Any]
    ) -> dict[str, Any]:
        if len(q) > 200:
            raise BadInput("a search has at most 200 characters")
        page = await list_brand_page(q, after, state.settings.admin.page_size)
        sources = sources_of(state)
        return {
            "brands": page,
            "q": q,
            "first_page": after is None,
            "sources": sources,
            "values": {"name": "", **{f"slug_{s}": "" for s in sources}, **values},
            "errors": {},
        }

    @get("/", name="admin:brands", guards=[admin_only])
    async def brands(
        self, request: Request[Any, Any, Any], state: State, q: Text = None, after: Text = None
    ) -> Response[Any]:
        """Brands by name, filtered by a search, with the add form."""
        return admin_page(request, LIST, await self.list_context(state, q or "", after, {}))

    @get("/search", name="admin:brand-search")
    async def search(self, q: Text = None) -> list[dict[str, str]]:
        """Brand names for search-as-you-type (any signed-in account)."""
        return await search_names(q or "")

    @post("/add", name="admin:brand-add", status_code=303, guards=[admin_only])
    async def add(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Add a brand with its per-source slugs."""
        sources = sources_of(state)
        name, raw, values = brand_form(await form_of(request), sources)
        try:
            name, slugs = checked_brand(name, raw, sources)
            info, created = await add_brand(name, slugs)
            if not created:
                message = f"a brand called {info.name!r} already exists"
                raise FieldError("name", message, 409)
        except FieldError as exc:
            context = await self.list_context(state, "", None, values)
            return field_error(request, LIST, context, exc)
        return redirect_with(f"/admin/brands/{info.uid}", f"Added {info.name}.")

    async def page_context(
        self, state: State, storage: Storage, brand: BrandInfo, values: dict[str, Any]
    ) -> dict[str, Any]:
        sources = sources_of(state)
        return {
            "brand": brand,
            "sources": sources,
            "history": await brand_history(brand.id),
            "articles": await recent_articles(storage, brand.id),
            "counts": await tab_counts(brand.id),
            "values": {
                "name": brand.name,
                **{f"slug_{s}": brand.slugs.get(s, "") for s in sources},
                "max_shows": "3",
                "source": next((s for s in sources if s in brand.slugs), default_source(sources)),
                **values,
            },
            "errors": {},
        }

    @get("/{uid:str}", name="admin:brand", guards=[admin_only])
    async def brand(
        self,
        request: Request[Any, Any, Any],
        storage: NamedDependency[Storage],
        found: NamedDependency[BrandInfo],
    ) -> Response[Any]:
        """A brand: edit form, queue a crawl, update history, articles."""
        return admin_page(
            request, PAGE, await self.page_context(request.app.state, storage, found, {})
        )

    async def refused(
        self,
        request: Request[Any, Any, Any],
        found: BrandInfo,
        values: dict[str, str],
        exc: FieldError,
    ) -> Response[Any]:
        """The brand's page again: the message beside its field, the input kept."""
        state = request.app.state
        context = await self.page_context(state, state.console_storage, found, values)
        return field_error(request, PAGE, context, exc)

    @post("/{uid:str}/edit", name="admin:brand-edit", status_code=303, guards=[admin_only])
    async def edit(
        self, request: Request[Any, Any, Any], found: NamedDependency[BrandInfo]
    ) -> Response[Any]:
        """Rename a brand or change its slugs."""
        sources = sources_of(request.app.state)
        name, raw, values = brand_form(await form_of(request), sources)
        try:
            checked, slugs = checked_brand(name, raw, sources)
            with field("name", BrandInputError):
                await update_brand(found, checked, slugs)
        except FieldError as exc:
            return await self.refused(request, found, values, exc)
        return redirect_with(f"/admin/brands/{found.uid}", f"Saved {checked}.")

    @post("/{uid:str}/crawl", name="admin:brand-crawl", status_code=303, guards=[admin_only])
    async def crawl(
        self, request: Request[Any, Any, Any], found: NamedDependency[BrandInfo]
    ) -> Response[Any]:
        """Queue a crawl of this brand (default: its newest 3 shows)."""
        form = await form_of(request)
        state = request.app.state
        source = text(form, "source")
        values = {"max_shows": text(form, "max_shows")[:40], "source": source[:40]}
        try:
            if source not in sources_of(state):
                raise FieldError("source", f"choose a source: {', '.join(sources_of(state))}")
            with field("max_shows", BadInput):
                max_shows = count(text(form, "max_shows"), "max shows", 0, 1000)
        except FieldError as exc:
            return await self.refused(request, found, values, exc)
        task_id = await crawl_tasks(state).add_task(found.id, max_shows, 0, source)
        shows = "every show" if max_shows == 0 else f"the newest {counted(max_shows, 'show')}"
        return redirect_with(
            f"/admin/brands/{found.uid}", f"Queued crawl task {task_id} for {shows}."
        )
