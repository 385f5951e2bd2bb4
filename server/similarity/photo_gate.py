"""Admission to search by photo: a per-address rate and a fixed number of slots per process.

Anyone may search by photo, and each one costs an upload in memory and a decode, so an
upload is admitted only while a slot is free (``search.photo_concurrency``; the slot is held
from reading the body until the model is done) and while its client address has sent fewer
than ``search.photo_uploads_per_minute`` in the last minute. Otherwise the answer is at once
503 or 429 with ``Retry-After``, never a wait in an unbounded queue. Both are per backend
process, in memory; the addresses remembered are bounded too.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rk.server.platform.http.errors import ApiError

WINDOW_S = 60.0
MAX_ADDRESSES = 10_000
BUSY_RETRY_S = 2


class Refused(ApiError):
    """An upload not admitted now; ``headers`` say when to retry."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(max(1, retry_after_s))}


class PhotoSearchBusy(Refused):
    """Every photo-search slot of this process is taken."""

    status_code = 503


class TooManyUploads(Refused):
    """This client address sent its share of photo searches for the minute."""

    status_code = 429


@dataclass(eq=False)
class PhotoGate:
    """Slots and per-address rates of one backend process (lives in ``app.state``)."""

    slots: int
    per_minute: int
    in_use: int = field(default=0, init=False)
    _seen: dict[str, deque[float]] = field(default_factory=dict, init=False, repr=False)

    def _count(self, address: str, now: float) -> None:
        """Count one upload from ``address``; TooManyUploads past the rate."""
        if not self.per_minute:
            return
        times = self._seen.pop(address, None) or deque()
        while times and times[0] <= now - WINDOW_S:
            times.popleft()
        self._seen[address] = times
        if len(times) >= self.per_minute:
            wait = math.ceil(times[0] + WINDOW_S - now)
            raise TooManyUploads(
                f"at most {self.per_minute} photo searches a minute from one address;"
                f" retry in {wait} s",
                wait,
            )
        times.append(now)
        if len(self._seen) > MAX_ADDRESSES:
            self._seen.pop(next(iter(self._seen)))

    @contextmanager
    def admit(self, address: str) -> Iterator[None]:
        """Hold a slot for one upload from ``address``; refused at once when none is free."""
        self._count(address, time.monotonic())
        if self.in_use >= self.slots:
            raise PhotoSearchBusy(
                f"all {self.slots} photo searches of this server are running; retry shortly",
                BUSY_RETRY_S,
            )
        self.in_use += 1
        try:
            yield
        finally:
            self.in_use -= 1
