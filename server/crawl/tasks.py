"""Crawl tasks: which brands spiders crawl next, leased to one worker at a time.

queued → running → done | failed | canceled. Claims go by priority (desc) then id, and
only to a worker of the task's source. A claim leases the task for
``queues.crawl_lease_s``; heartbeats renew the lease; a running task whose lease ran out
is claimable again, and that counts as a failed attempt. A failed attempt (a failed
result or a lost lease) queues the task again until ``queues.crawl_max_attempts``
attempts are used, then it is failed until an admin retries it.

A result or heartbeat from a worker that no longer holds the task is refused
(``TaskNotHeld``, HTTP 409) and changes nothing. A canceled task is never claimed again;
the spider already running it is not interrupted, and its result is recorded
(``shows_submitted``, ``last_error``) while the status stays canceled.

The SQL for each database engine is in ``rk.server.platform.jobs.crawl_*``; the policy is here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, get_args

import msgspec

from rk.core.api.sources import season_slug
from rk.core.api.wire import CrawlTask
from rk.core.config import QueueSettings
from rk.server.crawl.repository import (
    ClaimedTask,
    CrawlStore,
    CrawlTaskRow,
    TaskState,
    crawl_store_for,
)
from rk.server.crawl.repository_seasons import active_task_id
from rk.server.platform.db.database import Database, open_database
from rk.server.platform.http.errors import ApiError, Conflict, NotFound
from rk.server.platform.jobs.engine import OncePerTick, wall_clock

log = logging.getLogger(__name__)

TaskStatus = Literal["queued", "running", "done", "failed", "canceled"]
STATUSES: frozenset[str] = frozenset(get_args(TaskStatus))
LOST_BATCH = 100

__all__ = [
    "CrawlTaskRow",
    "CrawlTasks",
    "TaskConflict",
    "TaskNotFound",
    "TaskNotHeld",
    "UnknownBrand",
]


class TaskNotFound(NotFound):
    """No crawl task has this id."""


class UnknownBrand(NotFound):
    """A task was asked for a brand that does not exist."""


class TaskConflict(Conflict):
    """The task's status does not allow the change (retry a running task, cancel a done one)."""


class TaskNotHeld(TaskConflict):
    """A heartbeat or result from a worker that no longer holds the task."""


def _slug(slugs: str, source: str) -> str:
    """The brand's slug on ``source`` from its ``slugs`` JSON object; "" when it has none."""
    try:
        value = msgspec.json.decode(slugs or "{}")
    except msgspec.DecodeError:
        return ""
    slug = value.get(source) if isinstance(value, dict) else None
    return slug if isinstance(slug, str) else ""


def _wire_task(task: ClaimedTask, source: str) -> CrawlTask:
    """The claimed task as a spider gets it: the fields both types have, and its brand's slug
    on ``source``."""
    shared = msgspec.structs.asdict(task)
    return msgspec.convert({**shared, "slug": _slug(task.brand_slugs, source)}, CrawlTask)


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern (escape ``\\``) matching lowercased names that start with ``prefix``."""
    escaped = prefix.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


class CrawlTasks:
    """The crawl-task queue of one database, with rk's lease and attempt rules."""

    def __init__(
        self,
        store: CrawlStore,
        settings: QueueSettings,
        clock: Callable[[], int] = wall_clock,
        owned_db: Database | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self._owned_db = owned_db
        self._reaping = OncePerTick()

    @classmethod
    def on(
        cls, db: Database, settings: QueueSettings, clock: Callable[[], int] = wall_clock
    ) -> CrawlTasks:
        """The crawl tasks of the process's database."""
        return cls(crawl_store_for(db), settings, clock)

    @classmethod
    async def open(
        cls, dsn: str, settings: QueueSettings, clock: Callable[[], int] = wall_clock
    ) -> CrawlTasks:
        """Crawl tasks with a database of their own (tools, tests); ``close`` closes it."""
        db = await open_database(dsn, pool_size=2, readers=1)
        return cls(crawl_store_for(db), settings, clock, owned_db=db)

    async def add_task(
        self,
        brand_id: int,
        max_shows: int = 0,
        priority: int = 0,
        source: str = "vogue",
        season: str = "",
    ) -> int:
        """Queue one brand for ``source``; ``max_shows`` 0 means every show. The task id.

        With ``season`` (a season slug) the task is for the brand's show of that season.
        """
        if max_shows < 0:
            raise ApiError(f"max_shows must be 0 (no limit) or more, not {max_shows}")
        if season:
            try:
                season = season_slug(season)
            except ValueError as exc:
                raise ApiError(str(exc)) from None
        if not await self.store.brand_exists(brand_id):
            raise UnknownBrand(f"brand {brand_id} does not exist")
        return await self.store.insert(brand_id, source, priority, max_shows, self.clock(), season)

    async def active_task(self, brand_id: int, source: str) -> int | None:
        """The id of the brand's queued or running task on ``source`` (a second one would
        crawl the same shows again), or None."""
        return await active_task_id(brand_id, source)

    async def batch_add(
        self, prefix: str, max_shows: int, count: int, source: str = "vogue", priority: int = 0
    ) -> list[int]:
        """Queue up to ``count`` brands whose name starts with ``prefix`` (any case), by name.

        Brands that already have a queued or running task of ``source`` are skipped.
        Returns the ids of the tasks added.
        """
        if max_shows < 0:
            raise ApiError(f"max_shows must be 0 (no limit) or more, not {max_shows}")
        if count < 1:
            raise ApiError(f"count must be at least 1, not {count}")
        return await self.store.insert_by_prefix(
            _like_prefix(prefix), source, priority, max_shows, count, self.clock()
        )

    async def claim(self, worker: str, source: str) -> CrawlTask | None:
        """Lease the next task of ``source`` to ``worker``, or None when there is none."""
        now = self.clock()
        expired_before = now - self.settings.crawl_lease_s
        max_attempts = self.settings.crawl_max_attempts
        if self._reaping.first(now):
            await self._fail_lost(now, expired_before, max_attempts)
        while task := await self.store.claim(worker, source, now, expired_before, max_attempts):
            if task.brand_name is not None:
                return _wire_task(task, source)
            state = TaskState(id=task.id, status="running", worker=worker, attempts=task.attempts)
            await self.store.finish(
                state, "failed", 0, f"brand {task.brand_id} does not exist", now
            )
        return None

    async def _fail_lost(self, now: int, expired_before: int, max_attempts: int) -> None:
        for state in await self.store.lost(expired_before, max_attempts, LOST_BATCH):
            error = (
                f"lease lost: no result from {state.worker} within "
                f"{self.settings.crawl_lease_s} s, after {state.attempts} attempts"
            )
            if await self.store.finish(state, "failed", 0, error, now):
                log.warning("crawl task %s failed: %s", state.id, error)

    async def _held(self, task_id: int, worker: str) -> TaskState:
        """The task's state if ``worker`` holds it (running, or canceled while it ran)."""
        state = await self.store.get(task_id)
        if state is None:
            raise TaskNotFound(f"crawl task {task_id} does not exist")
        if state.worker != worker or state.status not in ("running", "canceled"):
            holder = f"held by {state.worker}" if state.worker else "not held"
            raise TaskNotHeld(
                f"crawl task {task_id} is not held by {worker} (status {state.status}, {holder})"
            )
        return state

    async def heartbeat(self, task_id: int, worker: str) -> TaskStatus:
        """Renew ``worker``'s lease on a running task; its status ("canceled" needs none)."""
        state = await self._held(task_id, worker)
        if state.status == "canceled":
            return "canceled"
        if not await self.store.touch(state, self.clock()):
            raise TaskNotHeld(f"crawl task {task_id} changed hands during the heartbeat")
        return "running"

    async def report(
        self,
        task_id: int,
        worker: str,
        status: Literal["done", "failed"],
        shows_submitted: int = 0,
        error: str = "",
    ) -> TaskStatus:
        """Record ``worker``'s result; the task's new status.

        done → done; failed → queued again while attempts remain, else failed; a canceled
        task keeps its status and records the count and error.
        """
        if status not in ("done", "failed"):
            raise ApiError(f"a crawl result is done or failed, not {status!r}")
        state = await self._held(task_id, worker)
        new: TaskStatus
        if state.status == "canceled":
            new = "canceled"
        elif status == "done":
            new = "done"
        else:
            new = "queued" if state.attempts < self.settings.crawl_max_attempts else "failed"
        if not await self.store.finish(state, new, shows_submitted, error, self.clock()):
            raise TaskNotHeld(f"crawl task {task_id} changed hands before its result was saved")
        return new

    async def list_tasks(
        self, status: TaskStatus | None = None, limit: int = 200, offset: int = 0
    ) -> list[CrawlTaskRow]:
        """Tasks newest first, optionally only those of one status."""
        if status is not None and status not in STATUSES:
            raise ApiError(f"unknown crawl task status {status!r}; one of {sorted(STATUSES)}")
        return await self.store.list(status, limit, offset)

    async def retry(self, task_id: int) -> None:
        """Queue a task again with attempts 0 (an admin's retry); a running task is refused."""
        if not await self.store.reset(task_id, self.clock()):
            await self._refuse(task_id, "retried")

    async def cancel(self, task_id: int) -> None:
        """Stop a queued or running task from being claimed (a running spider finishes)."""
        if not await self.store.cancel(task_id, self.clock()):
            await self._refuse(task_id, "canceled")

    async def delete(self, task_id: int) -> None:
        """Remove the task row (nothing else)."""
        if not await self.store.delete(task_id):
            raise TaskNotFound(f"crawl task {task_id} does not exist")

    async def _refuse(self, task_id: int, verb: str) -> None:
        state = await self.store.get(task_id)
        if state is None:
            raise TaskNotFound(f"crawl task {task_id} does not exist")
        raise TaskConflict(f"crawl task {task_id} is {state.status} and cannot be {verb}")

    async def close(self) -> None:
        """Close the store, and the database when ``open`` opened it."""
        await self.store.close()
        if self._owned_db is not None:
            await self._owned_db.close()
