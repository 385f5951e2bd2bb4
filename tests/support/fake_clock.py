"""A clock for the polite transport that never waits, so tests see waits as numbers."""

from __future__ import annotations

import asyncio


class FakeClock:
    """``sleep`` notes the wait asked for, yields once, and moves time to the sleep's end
    (never back: concurrent sleepers each wake at the end they asked for, or later)."""

    def __init__(self, start: float = 100.0) -> None:
        self.t = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        """The fake time, in seconds."""
        return self.t

    async def sleep(self, seconds: float) -> None:
        """Note the wait and let other tasks run; no real time passes."""
        self.sleeps.append(seconds)
        end = self.t + seconds
        await asyncio.sleep(0)
        self.t = max(self.t, end)
