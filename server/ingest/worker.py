"""The ingest worker pool: N claim loops over ``ingest_jobs``, stopped cleanly on shutdown.

Each loop claims one job, runs the handler for its kind while renewing the job's lease
(``Claim``), and records the result: done with outcome and note, committed in the same
transaction as the job's effects, or a failed attempt (the queue retries it after the
backoff). A handler commits its effects through ``claim.commit``; the worker commits the
result of a handler that wrote nothing.
On shutdown the loops stop claiming; a job in flight gets ``grace_s`` to finish, after
which it is cancelled, its partial objects are deleted and the job is released
untouched, so it is never half-written.
"""

from __future__ import annotations

import asyncio
import logging
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable, Mapping

import pluggy

from rk.core.api.plugins import notify
from rk.core.api.queues import Job
from rk.server.platform.http.errors import one_line
from rk.server.platform.jobs.claim import Claim, ClaimLost
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone, JobNotDone

log = logging.getLogger(__name__)

Handler = Callable[[Job, Claim], Awaitable[JobDone]]


class IngestWorkers:
    """``count`` claim loops sharing one queue and one set of job handlers."""

    def __init__(
        self,
        queue: JobQueue,
        handlers: Mapping[str, Handler],
        pm: pluggy.PluginManager,
        *,
        count: int = 1,
        poll_interval_s: float = 1.0,
        grace_s: float = 20.0,
    ) -> None:
        self.queue = queue
        self.handlers = dict(handlers)
        self.pm = pm
        self.count = max(0, count)
        self.poll_interval_s = poll_interval_s
        self.grace_s = grace_s
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start the loops in the running event loop."""
        self._tasks = [
            asyncio.create_task(self._loop(n), name=f"rk-ingest-{n}") for n in range(self.count)
        ]

    async def stop(self) -> None:
        """Stop claiming; wait up to ``grace_s`` for jobs in flight, then cancel and release."""
        self._stopping.set()
        if not self._tasks:
            return
        _, pending = await asyncio.wait(self._tasks, timeout=self.grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    async def _idle(self, wakeups: int = -1) -> None:
        """Wait for a new job (``JobQueue.enqueued``), the poll interval, or stop.

        ``wakeups`` is the queue's count before the claim that found nothing: a job
        announced since then is claimed at once, also one announced while this wait is
        being set up (a NOTIFY read with the claim's answer runs just after it).
        """
        seen = self.queue.wakeups if wakeups < 0 else wakeups
        if seen < self.queue.wakeups:
            return
        waits = [
            asyncio.create_task(self._stopping.wait()),
            asyncio.create_task(self._announced(seen)),
        ]
        try:
            await asyncio.wait(waits, timeout=self.poll_interval_s, return_when=FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    async def _announced(self, seen: int) -> None:
        """Return once the queue has announced a job after its ``seen``-th announcement.

        The count is checked where the wait on the pulse begins, in one step: a pulse
        between the caller's check and this task's start is not lost.
        """
        while self.queue.wakeups <= seen:
            await self.queue.enqueued.wait()

    async def _loop(self, n: int) -> None:
        while not self._stopping.is_set():
            wakeups = self.queue.wakeups
            try:
                job = await self.queue.claim()
            except Exception as exc:
                log.warning("ingest worker %d cannot claim: %s", n, one_line(str(exc)))
                await self._idle()
                continue
            if job is None:
                await self._idle(wakeups)
                continue
            await self.run_one(job)

    async def run_one(self, job: Job) -> None:
        """Run one claimed job and record its result; on cancel, release it and re-raise."""
        handler = self.handlers.get(job.kind)
        try:
            async with Claim(self.queue, job) as claim:
                if handler is None:
                    raise LookupError(f"no handler for job kind {job.kind!r}")
                done = await handler(job, claim)
                if claim.done is None:
                    await claim.commit(lambda: _ready(done))
        except asyncio.CancelledError:
            await asyncio.shield(self._release(job))
            raise
        except ClaimLost:
            log.warning("ingest job %d was reclaimed before it finished; result dropped", job.id)
            return
        except Exception as exc:
            error = one_line(str(exc) or type(exc).__name__)
            permanent = isinstance(exc, JobNotDone) and exc.permanent
            result = await self.queue.fail(job, error, permanent=permanent)
            log.warning("ingest job %d attempt %d: %s (%s)", job.id, job.attempts, error, result)
            return
        log.info("ingest job %d: %s", job.id, done.note)
        if done.show is not None:
            notify(
                self.pm,
                "rk_show_ingested",
                show=done.show,
                article_id=done.article_id,
                outcome=done.outcome,
            )
        if done.status_change is not None:
            old, new = done.status_change
            notify(
                self.pm,
                "rk_article_status_changed",
                article_id=done.article_id,
                old=old,
                new=new,
            )

    async def _release(self, job: Job) -> None:
        try:
            await self.queue.release(job)
            log.info("ingest job %d released on shutdown", job.id)
        except Exception as exc:
            log.warning("ingest job %d not released: %s", job.id, one_line(str(exc)))


async def _ready(done: JobDone) -> JobDone:
    """A result with nothing left to write."""
    return done
