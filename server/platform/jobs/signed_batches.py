"""Signed enqueues in batches: the requests waiting at one moment are one backend round trip.

A signed ingest records its signature and its job together (``enqueue_signed``), so a
replay makes no job and a failed write leaves neither. Whoever arrives while a batch is
being written joins the next one. When a batch's statement fails, its jobs are written
again one at a time, so the failure is answered only to the request it belongs to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rk.core.api.queues import QueueBackend, SignedJob
from rk.server.platform.db.batches import Batches, Waiting

MAX_BATCH = 256
"""The most jobs one round trip writes."""

Enqueue = Waiting[SignedJob, int | None]
"""A signed job and the future its new id (None: a replay) goes to."""


class SignedBatches:
    """Batches ``enqueue_signed`` calls over one backend."""

    def __init__(self, backend: QueueBackend, clock: Callable[[], int]) -> None:
        self.backend = backend
        self.clock = clock
        self._batches: Batches[SignedJob, int | None] = Batches(
            self._write, name="rk-signed-enqueues", most=MAX_BATCH
        )

    async def enqueue(self, job: SignedJob) -> int | None:
        """The new job's id, or None when its signature was already used (a replay)."""
        return await self._batches.ask(job)

    async def _write(self, waiting: list[Enqueue]) -> None:
        """Write the batch's jobs, a signature sent twice at once written once."""
        unique: dict[str, Enqueue] = {}
        for job, done in waiting:
            if done.done():
                continue
            if job.signature in unique:  # the same request twice at once: one wins
                done.set_result(None)
            else:
                unique[job.signature] = (job, done)
        if unique:
            await self._write_batch(list(unique.values()))

    async def _write_batch(self, batch: list[Enqueue]) -> None:
        try:
            ids = await self.backend.enqueue_signed([job for job, _ in batch], self.clock())
        except Exception as exc:
            if len(batch) == 1:
                _answer(batch[0][1], exc)
                return
            for one in batch:  # nothing of the batch was kept: each alone, failing alone
                await self._write_batch([one])
            return
        for (_, done), job_id in zip(batch, ids, strict=True):
            _answer(done, job_id)

    async def close(self) -> None:
        """Wait for the batch being written (its requests get their answers)."""
        await self._batches.settled()


def _answer(done: asyncio.Future[int | None], outcome: int | Exception | None) -> None:
    """Resolve a waiting request, unless it was cancelled meanwhile."""
    if done.done():
        return
    if isinstance(outcome, Exception):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)
