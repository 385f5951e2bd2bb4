"""The neighbours job: places newly saved vectors, serially, in one backend process at a time.

Saving vectors never computes neighbours (the predecessor did it inside the request and
timed out past 60 s for 100 images). Instead every backend process runs this loop for its
model; the ``job_locks`` lease ``neighbours:<model>`` lets only one of them work on a model
at a time, and it is renewed while the job scans. A backend backfilling a new model beside
the serving one places that model's vectors without holding up the serving model's. A save
in this process wakes the loop at once (through the ``rk_embeddings_saved`` event); saves
elsewhere are found by polling. That loop (``VectorsWorker``) is also the tags job's.

One pass takes the unplaced vectors a batch at a time (one kind per batch), asks the
process's vector index where they land (``VectorIndex.place``: the exact index runs them
past every stored vector of the kind, which it holds in process and brings up to date
first; pgvector asks its HNSW index), merges the
newcomers into the existing lists they enter, and in one transaction writes the new and
changed lists, moves the public site's ``neighbours`` counter once and marks the batch
placed; the lists' thresholds the exact index holds follow that write
(``neighbour_thresholds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod

from rk.core import hookimpl
from rk.core.api.vector_indexes import VectorIndex
from rk.core.config import VectorSettings
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.job_lock import JobLease, new_holder
from rk.server.similarity.neighbour_lists import Batch, next_batch, write_lists
from rk.server.similarity.neighbour_thresholds import HELD, read_stamp
from rk.server.similarity.neighbours import BLOCK_ROWS, merge_list
from rk.server.similarity.repository.neighbour_lists import (
    load_lists,
    mark_placed,
    place_transaction,
)
from rk.server.similarity.vectors.exact import ExactIndex

log = logging.getLogger(__name__)

LOCK_NAME = "neighbours"
BATCH = 256
"""Vectors placed per scan of the stored ones: bigger amortises the scan, smaller frees the
lock sooner and bounds the lists rewritten at once."""


class LeaseLost(Exception):
    """Another process took the neighbours lease (ours ran out): stop without writing."""


class NeighboursJob:
    """One pass over the unplaced vectors of ``model``, under the lease."""

    def __init__(
        self,
        model: str,
        *,
        k: int,
        lease: JobLease,
        index: VectorIndex | None = None,
        batch: int = BATCH,
        block_rows: int = BLOCK_ROWS,
    ) -> None:
        self.model = model
        self.k = k
        self.lease = lease
        self.index = index or ExactIndex(VectorSettings(), block_rows)
        self.batch = batch

    async def run(self) -> int | None:
        """Place everything unplaced; how many vectors, or None when another process holds it."""
        if not await self.lease.acquire():
            return None
        placed = 0
        try:
            while (batch := await next_batch(self.model, self.batch)) is not None:
                done = await self.place(batch)
                if done == 0:  # every vector changed under us: the next pass takes them
                    break
                placed += done
                if not await self.lease.renew():
                    raise LeaseLost(LOCK_NAME)
        finally:
            await self.lease.release()
        return placed

    async def place(self, batch: Batch) -> int:
        """Place one batch: scan, then in one transaction write the lists, move the public
        ``neighbours`` counter once and mark the batch placed; how many were placed."""
        if len(batch.ids) == 0:
            return 0
        placed_at = await self.index.place(
            self.model, batch.kind, batch.ids, batch.vectors, self.k, self._heartbeat
        )
        lists = dict(placed_at.lists)
        reverse = placed_at.reverse
        current = await load_lists(self.model, sorted(reverse))
        for owner, candidates in reverse.items():
            merged = merge_list(current[owner], candidates, self.k)
            if merged != current[owner]:
                lists[owner] = merged
        if not await self.lease.renew():
            raise LeaseLost(LOCK_NAME)
        async with place_transaction():
            await write_lists(self.model, lists, current)
            placed = await mark_placed(self.model, batch.rows)
            stamp = await read_stamp()
        HELD.written(self.model, self.k, lists, stamp)
        log.info(
            "neighbours: placed %d %s vectors (%d lists written)", placed, batch.kind, len(lists)
        )
        return placed

    async def _heartbeat(self) -> None:
        """Between blocks of a long scan: keep the lease, or stop if it was lost."""
        if not await self.lease.renew_if_due():
            raise LeaseLost(LOCK_NAME)


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


class NeighboursWorker(VectorsWorker):
    """The loop every backend process runs; only the lease holder does the work."""

    def __init__(
        self,
        model: str,
        *,
        k: int,
        poll_interval_s: float,
        lease_ttl_s: int = 60,
        batch: int = BATCH,
        holder: str | None = None,
        index: VectorIndex | None = None,
    ) -> None:
        name = f"{LOCK_NAME}:{model}"  # each model's lists are its own: spaces place side by side
        lease = JobLease(name, holder or new_holder("neighbours"), lease_ttl_s)
        super().__init__("neighbours", model, lease, poll_interval_s, log)
        self.job = NeighboursJob(model, k=k, lease=lease, index=index, batch=batch)

    async def run_pass(self) -> None:
        """Place what is unplaced; a pass whose lease another process took is dropped."""
        try:
            await self.job.run()
        except LeaseLost:
            log.warning("neighbours: lease lost to another process; pass abandoned")
