"""The console's crawl queue view: tasks with their brand, newest first, a keyset page.

A task that finished without sending a show, or with some shows failed, is done in the
queue's terms but not in the moderator's: it carries a warning and its reason, so it never
passes for a plain green "done".

Changes (add, batch add, retry, cancel, delete) go through ``CrawlTasks``, the same queue
the spiders and ``rk crawl`` use; this module only reads.
"""

from __future__ import annotations

from msgspec import Struct

from rk.server.console.repository.crawl import task_rows
from rk.server.crawl import STATUSES
from rk.server.platform.http.errors import ApiError

NO_SHOWS = "The source listed no show for this brand: check its slug there, or the season asked."


class TaskRow(Struct, frozen=True, kw_only=True):
    """One crawl task as the queue page lists it."""

    id: int
    brand_id: int
    brand: str
    brand_uid: str
    source: str
    season: str
    status: str
    priority: int
    max_shows: int
    worker: str
    attempts: int
    shows_submitted: int
    last_error: str
    created_at: int
    updated_at: int
    locked_at: int

    @property
    def warning(self) -> str:
        """Why a done task still wants a look: it found nothing, or some shows failed."""
        if self.status != "done":
            return ""
        if self.shows_submitted == 0:
            return "no shows"
        return "done, with errors" if self.last_error else ""

    @property
    def reason(self) -> str:
        """What went wrong, in a sentence ("" when nothing did)."""
        if self.status == "done" and self.shows_submitted == 0 and not self.last_error:
            return NO_SHOWS
        return self.last_error


class TaskPage(Struct, frozen=True, kw_only=True):
    """A page of tasks and the cursor of the next one (None on the last)."""

    items: list[TaskRow]
    next_before: int | None


async def list_tasks(
    status: str | None, before: int | None, limit: int = 50, brand_id: int = 0
) -> TaskPage:
    """Tasks newest first, optionally of one status or brand, below ``before``."""
    if status is not None and status not in STATUSES:
        raise ApiError(f"status must be one of {', '.join(sorted(STATUSES))}, not {status!r}")
    found = await task_rows(status, brand_id, before, limit + 1)
    fields = TaskRow.__struct_fields__
    items = [TaskRow(**{name: row[name] for name in fields}) for row in found[:limit]]
    return TaskPage(items=items, next_before=items[-1].id if len(found) > limit else None)
