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

MAX_BATCH = 256
"""The most jobs one round trip writes."""

Waiting = tuple[SignedJob, "asyncio.Future[int | None]"]


class SignedBatches:
    """Batches ``enqueue_signed`` calls over one backend."""

    def __init__(self, backend: QueueBackend, clock: Callable[[], int]) -> None:
        self.backend = backend
        self.clock = clock
        self._waiting: list[Waiting] = []
        self._writer: asyncio.Task[None] | None = None

    async def enqueue(self, job: SignedJob) -> int | None:
        """The new job's id, or None when its signature was already used (a replay)."""
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((job, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="rk-signed-enqueues")
        return await done

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch = [w for w in self._waiting[:MAX_BATCH] if not w[1].done()]
                del self._waiting[:MAX_BATCH]
                unique: dict[str, Waiting] = {}
                for job, done in batch:
                    if job.signature in unique:  # the same request twice at once: one wins
                        done.set_result(None)
                    else:
                        unique[job.signature] = (job, done)
                if unique:
                    await self._write_batch(list(unique.values()))
        finally:
            self._writer = None

    async def _write_batch(self, batch: list[Waiting]) -> None:
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
        if self._writer is not None:
            await asyncio.wait([self._writer])


def _answer(done: asyncio.Future[int | None], outcome: int | Exception | None) -> None:
    """Resolve a waiting request, unless it was cancelled meanwhile."""
    if done.done():
        return
    if isinstance(outcome, Exception):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)
