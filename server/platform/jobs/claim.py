"""A claimed ingest job while its worker runs it: the lease kept renewed, the result fenced.

While the handler works (downloads, uploads) the lease is renewed every third of
``queues.ingest_stuck_s``, so however long a show takes no other worker claims it; a
worker that dies stops renewing, and its job is claimed again when the lease runs out.

``commit`` writes the job's effects and marks it done in one transaction that first
re-checks the claim (on PostgreSQL it also locks the job row): a worker whose claim was
lost changes nothing, and a crash anywhere before the commit leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType

from rk.core.api.queues import Job
from rk.server.platform.http.errors import one_line
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone

log = logging.getLogger(__name__)


class ClaimLost(Exception):
    """The job was claimed again (its lease ran out) before this worker committed."""


class Claim:
    """The claim on ``job``: use as ``async with``; the handler calls ``commit`` once."""

    def __init__(self, queue: JobQueue, job: Job) -> None:
        self.queue = queue
        self.job = job
        self.done: JobDone | None = None
        self._renewer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Claim:
        self._renewer = asyncio.create_task(
            self._renew_until_stopped(), name=f"rk-ingest-lease-{self.job.id}"
        )
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stop_renewing()

    async def _renew_until_stopped(self) -> None:
        while True:
            await asyncio.sleep(self.queue.renew_every_s)
            try:
                held = await self.queue.renew(self.job)
            except Exception as exc:
                log.warning("ingest job %d: lease not renewed: %s", self.job.id, one_line(str(exc)))
                continue
            if not held:
                log.warning("ingest job %d: claim lost; its result will be dropped", self.job.id)
                return

    async def _stop_renewing(self) -> None:
        await stop_task(self._renewer)
        self._renewer = None

    async def commit(self, write: Callable[[], Awaitable[JobDone]]) -> JobDone:
        """Run ``write()`` and mark the job done in one transaction, if the claim still holds.

        Raises:
            ClaimLost: the job was claimed again meanwhile; nothing ``write`` did is kept.
        """
        await self._stop_renewing()
        async with self.queue.db.transaction():
            if not await self.queue.renew(self.job):
                raise ClaimLost(f"ingest job {self.job.id} was claimed again")
            done = await write()
            if not await self.queue.complete(self.job, done.outcome, done.note):
                raise ClaimLost(f"ingest job {self.job.id} was claimed again")
        self.done = done
        return done
