"""The periodic storage sweep: every backend process runs the loop, one sweeps per interval.

The ``job_locks`` lease ``storage-gc`` lasts one interval, so across all processes at
most one sweep (``services.storage_gc.sweep``) starts per ``media.gc_interval_s``; a
process that died simply lets its lease run out.

A starting process waits ``START_DELAY_S`` (at most one interval) before its first try: it
is busiest then (cold caches, first requests), and a sweep that is due can wait a few
minutes (over 100,000 articles a sweep overlapping a start slowed the first pages tenfold).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from rk.core.api.storage import Storage
from rk.server.media.storage_gc import sweep
from rk.server.platform.http.errors import one_line
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.job_lock import JobLease, new_holder

log = logging.getLogger(__name__)

LOCK_NAME = "storage-gc"
START_DELAY_S = 600


class StorageSweeper:
    """Sweeps ``storage`` for orphans every ``interval_s`` seconds (the lease holder only)."""

    def __init__(
        self, storage: Storage, *, interval_s: int, grace_s: int, start_delay_s: int | None = None
    ) -> None:
        self.storage = storage
        self.interval_s = interval_s
        self.grace_s = grace_s
        self.start_delay_s = (
            min(interval_s, START_DELAY_S) if start_delay_s is None else start_delay_s
        )
        self.lease = JobLease(LOCK_NAME, new_holder("storage-gc"), max(2, interval_s))
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the loop in the running event loop (no-op when the interval is 0)."""
        if self.interval_s > 0:
            self._task = asyncio.create_task(self._loop(), name="rk-storage-sweep")

    async def stop(self) -> None:
        """Stop the loop; a sweep in progress is cancelled (each delete is re-checked)."""
        self._stopping.set()
        await stop_task(self._task)

    async def run_once(self) -> bool:
        """Sweep now if this process holds the lease; True when it swept."""
        if not await self.lease.acquire():
            return False
        started = time.monotonic()
        report = await sweep(self.storage, grace_s=self.grace_s)
        log.info(
            "storage sweep (%.1f s): %s",
            time.monotonic() - started,
            "; ".join(report.lines()[:3]),
        )
        return True

    async def _wait(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)

    async def _loop(self) -> None:
        await self._wait(self.start_delay_s)
        while not self._stopping.is_set():
            try:
                await self.run_once()
            except Exception as exc:
                log.warning("storage sweep failed: %s", one_line(str(exc) or repr(exc)))
            await self._wait(self.interval_s)
