"""The loop of a job that follows saved vectors (neighbours, tags): a pass whenever its
model's vectors are saved in this process (the ``rk_embeddings_saved`` event), else every
poll interval, under the job's lease; and its place in the backend's lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator

import pluggy

from rk.core import hookimpl
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.job_lock import JobLease


class VectorsWorker(ABC):
    """Runs ``run_pass`` in a loop for ``model``; a failed pass is logged under ``name``
    and tried again at the next poll."""

    def __init__(
        self, name: str, model: str, lease: JobLease, poll_interval_s: float, log: logging.Logger
    ) -> None:
        self.name = name
        self.model = model
        self.lease = lease
        self.poll_interval_s = poll_interval_s
        self.log = log
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @abstractmethod
    async def run_pass(self) -> object:
        """One pass of the job."""

    @hookimpl
    def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
        """Vectors were saved in this process: run a pass now instead of at the next poll."""
        if model == self.model:
            self._wake.set()

    def wake(self) -> None:
        """Run a pass as soon as the current one (if any) ends."""
        self._wake.set()

    def start(self) -> None:
        """Start the loop in the running event loop."""
        self._task = asyncio.create_task(self._loop(), name=f"rk-{self.name}")

    async def stop(self) -> None:
        """Stop the loop; a pass in progress is cancelled (each job leaves nothing half-way
        that its next pass would not redo) and the lease is given up."""
        self._stopping.set()
        self._wake.set()
        await stop_task(self._task)
        with contextlib.suppress(Exception):
            await self.lease.release()

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                await self.run_pass()
            except Exception:
                self.log.exception(
                    "%s: pass failed; retrying after %g s", self.name, self.poll_interval_s
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.poll_interval_s)


@contextlib.asynccontextmanager
async def running(pm: pluggy.PluginManager, worker: VectorsWorker) -> AsyncIterator[None]:
    """``worker`` registered for events and looping until the block ends."""
    pm.register(worker, name=f"rk-{worker.name}-{id(worker)}")
    try:
        worker.start()
        yield
    finally:
        await worker.stop()
        pm.unregister(worker)
