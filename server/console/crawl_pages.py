"""``/admin/crawl`` (admins): the crawl queue, adding tasks one brand or a batch at a time.

The list refreshes itself while tasks are queued or running. Bad input comes back as the
page with the message next to its field and the input kept; nothing is queued.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import FormMultiDict, State
from litestar.types import Guard

from rk.core.api.errors import RkError
from rk.core.api.lookups import source_registry
from rk.server.brands import find_brand
from rk.server.console.accounts.guards import admin_only
from rk.server.console.crawl import list_tasks
from rk.server.console.dashboard import crawl_counts
from rk.server.console.params import BadInput, Segment, Text, count, cursor, path_id
from rk.server.console.render import MAX_FIELD, admin_page, counted, form_error, form_of, text
from rk.server.crawl import STATUSES, CrawlTasks
from rk.server.platform.http.errors import ApiError
from rk.server.platform.web.pages import redirect_with

TEMPLATE = "admin/crawl.html"
MAX_SHOWS = 1000
MAX_BATCH = 1000
DEFAULTS = {
    "brand": "",
    "source": "",
    "max_shows": "3",
    "priority": "0",
    "prefix": "",
    "count": "20",
}


def sources_of(state: State) -> list[str]:
    """The registered source names (what a task may be queued for)."""
    return sorted(source_registry(state.pm).names())


def default_source(sources: list[str]) -> str:
    """The source a new task gets unless the form says otherwise: vogue when present."""
    return "vogue" if "vogue" in sources else (sources[0] if sources else "")


def crawl_tasks(state: State) -> CrawlTasks:
    """The backend's crawl-task queue."""
    tasks: CrawlTasks = state.crawl_tasks
    return tasks


class FieldError(RkError):
    """Bad input in one field of a crawl form."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def field_count(form: FormMultiDict, name: str, label: str, low: int, high: int) -> int:
    """A whole-number field, or FieldError naming it."""
    try:
        return count(text(form, name), label, low, high)
    except BadInput as exc:
        raise FieldError(name, str(exc)) from None


def field_name(form: FormMultiDict, name: str, missing: str, too_long: str) -> str:
    """A required text field of at most 200 characters, or FieldError with the fitting message."""
    value = text(form, name)
    if not value:
        raise FieldError(name, missing)
    if len(value) > 200:
        raise FieldError(name, too_long)
    return value


def field_source(form: FormMultiDict, sources: list[str]) -> str:
    """The chosen source, or FieldError."""
    source = text(form, "source")
    if source not in sources:
        raise FieldError("source", f"Choose a source: {', '.join(sources) or 'none registered'}.")
    return source


class CrawlPages(Controller):
    """The crawl queue and its forms."""

    path = "/crawl"
    include_in_schema = False
    guards: Sequence[Guard] | None = (admin_only,)

    async def context(
        self, state: State, status: str | None, before: str | None, values: dict[str, str]
    ) -> dict[str, Any]:
        """What the crawl page shows."""
        if status and status not in STATUSES:
            raise BadInput(f"status must be one of {', '.join(sorted(STATUSES))}")
        page = await list_tasks(status or None, cursor(before), state.settings.admin.page_size)
        sources = sources_of(state)
        counts = await crawl_counts()
        return {
            "tasks": page,
            "status": status or "",
            "counts": counts,
            "sources": sources,
            "values": {**DEFAULTS, "source": default_source(sources), **values},
            "errors": {},
            "first_page": not before,
            "live": counts["queued"] + counts["running"] > 0,
            "max_attempts": state.settings.queues.crawl_max_attempts,
        }

    @get("/", name="admin:crawl")
    async def queue(
        self,
        request: Request[Any, Any, Any],
        state: State,
        status: Text = None,
        before: Text = None,
    ) -> Response[Any]:
        """Tasks newest first, filtered by status."""
        return admin_page(request, TEMPLATE, await self.context(state, status, before, {}))

    async def refused(
        self, request: Request[Any, Any, Any], state: State, form: FormMultiDict, exc: FieldError
    ) -> Response[Any]:
        values = {key: text(form, key)[:MAX_FIELD] for key in DEFAULTS}
        context = await self.context(state, None, None, values)
        return form_error(request, TEMPLATE, context, exc.field, str(exc))

    @post("/add", name="admin:crawl-add", status_code=303)
    async def add(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Queue one brand."""
        form = await form_of(request)
        try:
            name = field_name(
                form, "brand", "Choose a brand.", "A brand name has at most 200 characters."
            )
            brand = await find_brand(name)
            if brand is None:
                raise FieldError("brand", f"No brand {name!r}. Add it under Brands first.")
            source = field_source(form, sources_of(state))
            max_shows = field_count(form, "max_shows", "max shows", 0, MAX_SHOWS)
            priority = field_count(form, "priority", "priority", -1000, 1000)
        except FieldError as exc:
            return await self.refused(request, state, form, exc)
        task_id = await crawl_tasks(state).add_task(brand.id, max_shows, priority, source)
        shows = "every show" if max_shows == 0 else f"newest {counted(max_shows, 'show')}"
        return redirect_with("/admin/crawl", f"Queued task {task_id}: {brand.name} ({shows}).")

    @post("/batch", name="admin:crawl-batch", status_code=303)
    async def batch(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Queue up to ``count`` brands whose names start with a prefix."""
        form = await form_of(request)
        try:
            prefix = field_name(
                form,
                "prefix",
                "Enter the first letters of the brand names.",
                "A prefix has at most 200 characters.",
            )
            source = field_source(form, sources_of(state))
            max_shows = field_count(form, "max_shows", "max shows", 0, MAX_SHOWS)
            how_many = field_count(form, "count", "count", 1, MAX_BATCH)
            if max_shows == 0 and text(form, "every_show") != "yes":
                raise FieldError(
                    "max_shows",
                    "0 means every show of every brand, which can be thousands of pages."
                    " Tick “yes, every show” to confirm, or enter a number.",
                )
        except FieldError as exc:
            return await self.refused(request, state, form, exc)
        added = await crawl_tasks(state).batch_add(prefix, max_shows, how_many, source)
        if not added:
            return redirect_with(
                "/admin/crawl",
                f"No task added: no brand starting with {prefix!r} is without a queued task.",
                "info",
            )
        return redirect_with(
            "/admin/crawl", f"Queued {counted(len(added), 'brand')} starting with {prefix!r}."
        )

    @post("/{task_id:str}/{action:str}", name="admin:crawl-action", status_code=303)
    async def act(
        self, request: Request[Any, Any, Any], state: State, task_id: Segment, action: Segment
    ) -> Response[Any]:
        """Retry, cancel or delete one task."""
        number = path_id(task_id, "crawl task")
        tasks = crawl_tasks(state)
        steps = {"retry": tasks.retry, "cancel": tasks.cancel, "delete": tasks.delete}
        if action not in steps:
            raise BadInput(f"no action {action[:40]!r} for a crawl task")
        try:
            await steps[action](number)
        except ApiError as exc:
            context = await self.context(state, None, None, {})
            return form_error(request, TEMPLATE, context, "form", f"{exc}.", exc.status_code)
        done = {"retry": "is queued again", "cancel": "canceled", "delete": "deleted"}[action]
        return redirect_with("/admin/crawl", f"Task {number} {done}.")
