"""Bounded work for anonymous trend requests: a few computations at a time per process.

Each answer is a handful of ``GROUP BY`` queries over the archive (tens to hundreds of
milliseconds at 100,000 looks, ``bench.trends``), counted afresh on every request, so a
flood of requests must not fan out into as many concurrent scans. ``SLOTS`` computations run
at once; up to ``MAX_WAITING`` more wait their turn; past that a request is refused at once
with 503 and ``Retry-After``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar.datastructures import State

from rk.server.platform.http.errors import Unavailable

SLOTS = 2
MAX_WAITING = 16
RETRY_AFTER_S = 2


class TrendsBusy(Unavailable):
    """Every trend slot is taken and the queue is full: retry shortly."""

    def __init__(self, message: str) -> None:
        """The 503 with ``message`` and ``Retry-After``."""
        super().__init__(message)
        self.headers = {"Retry-After": str(RETRY_AFTER_S)}


class TrendSlots:
    """The slots of one process (in ``app.state``, made on first use by ``slots_of``)."""

    def __init__(self, slots: int = SLOTS, max_waiting: int = MAX_WAITING) -> None:
        """``slots`` computations at once, ``max_waiting`` more queued."""
        self.slots = slots
        self.max_waiting = max_waiting
        self.waiting = 0
        self._free = asyncio.Semaphore(slots)

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold a slot while computing one answer; TrendsBusy when too many wait already."""
        if self._free.locked() and self.waiting >= self.max_waiting:
            raise TrendsBusy(f"all {self.slots} trend computations are running; retry shortly")
        self.waiting += 1
        try:
            await self._free.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self._free.release()


def slots_of(state: State) -> TrendSlots:
    """The app's trend slots (made on first use, in the app's event loop)."""
    slots = state.get("trend_slots")
    if not isinstance(slots, TrendSlots):
        slots = state["trend_slots"] = TrendSlots()
    return slots
