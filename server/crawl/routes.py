"""The signed crawl-task API under ``/admin/internal/crawl/tasks``: claim, heartbeat, result.

Spiders (``rk spider serve``) call these through ``rk.core.runtime.client.BackendClient``. The
lease and attempt rules live in ``rk.server.crawl.tasks``; a heartbeat or result
from a worker that no longer holds the task is that service's ``TaskNotHeld``, answered
409 with one line, and changes nothing.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, Response, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, Parameter

from rk.core.api.wire import MAX_ID, CrawlClaim, CrawlHeartbeat, CrawlResult, CrawlTask
from rk.server.crawl.tasks import CrawlTasks

TaskId = Annotated[int, Parameter(ge=1, le=MAX_ID, description="The crawl task's id")]


def crawl_tasks(state: State) -> CrawlTasks:
    """The backend's crawl-task queue, opened by the lifespan."""
    return state.crawl_tasks


class CrawlTaskController(Controller):
    """What a serving spider calls for each task it crawls."""

    path = "/crawl/tasks"
    tags = ("internal",)
    dependencies = {"tasks": Provide(crawl_tasks, sync_to_thread=False)}

    @post("/", status_code=200, summary="Claim the next crawl task of a source")
    async def claim(
        self, data: JSONBody[CrawlClaim], tasks: NamedDependency[CrawlTasks]
    ) -> Response[CrawlTask | None]:
        """Lease one task to ``worker`` (200 with the task), or 204 with no body when none."""
        task = await tasks.claim(data.worker, data.source)
        if task is None:
            return Response(content=None, status_code=204)
        lease = tasks.settings.crawl_lease_s
        return Response(content=msgspec.structs.replace(task, lease_s=lease), status_code=200)

    @post("/{task_id:int}/heartbeat", status_code=204, summary="Renew a task's lease")
    async def heartbeat(
        self, task_id: TaskId, data: JSONBody[CrawlHeartbeat], tasks: NamedDependency[CrawlTasks]
    ) -> None:
        """Extend the lease while ``worker`` still holds the task; 409 when it does not."""
        await tasks.heartbeat(task_id, data.worker)

    @post("/{task_id:int}/result", status_code=204, summary="Report a task's outcome")
    async def result(
        self, task_id: TaskId, data: JSONBody[CrawlResult], tasks: NamedDependency[CrawlTasks]
    ) -> None:
        """Record done (with the shows submitted) or failed (with the error); 409 if not held."""
        await tasks.report(task_id, data.worker, data.status, data.shows_submitted, data.error)
