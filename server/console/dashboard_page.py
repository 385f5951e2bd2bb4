"""``/admin``: the dashboard. Every number links to the list it counts."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.datastructures import State

from rk.server.console.dashboard import dashboard
from rk.server.console.render import admin_page
from rk.server.platform.ops.archive_metrics import ArchiveMetrics, Census
from rk.server.similarity import runtime_of

NO_MODEL = Census(images=0, image_bytes=0, pending={}, capped=0, oldest_unplaced=0)
"""Without a model there are no vector figures, so the census (a scan of images) is skipped."""


def census_reader(state: State) -> ArchiveMetrics:
    """The process's archive census reader (shared with ``/metrics``)."""
    reader = state.get("archive_metrics")
    if not isinstance(reader, ArchiveMetrics):
        reader = state["archive_metrics"] = ArchiveMetrics()
    return reader


class DashboardPage(Controller):
    """The console's front page."""

    include_in_schema = False

    @get("/", name="admin:dashboard")
    async def dashboard(self, request: Request[Any, Any, Any], state: State) -> Response[Any]:
        """Queues, the last day's jobs, the review backlog, embeddings."""
        embedder = runtime_of(state).embedder
        model = embedder.model_id if embedder is not None else None
        if model is None:
            census = NO_MODEL
        else:
            census = await census_reader(state).census(model, state.settings.embed.failure_cap)
        figures = await dashboard(census, model)
        return admin_page(request, "admin/dashboard.html", {"d": figures})
