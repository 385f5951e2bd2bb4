"""Request starts on a site host taken from the backend, so a fleet of spiders keeps one pace.

Without it each spider process keeps ``spider.min_interval_s`` on its own, and ten spiders
give a site ten times the rate its operator configured. ``FleetBudget`` asks the backend
(``POST /admin/internal/hosts/tokens``) for ``spider.fleet_batch`` starts at a time: the
backend spaces the starts of every spider of the archive at least the interval apart, and
this spider starts a request only at one of its own. A start that passed unused is dropped
(the site simply sees fewer requests). A ``Retry-After`` one spider is told is reported with
the next batch it asks for (``pause_s``), and every spider's next batch waits behind it.

When the backend cannot be reached (or refuses the call), the spider keeps its own per-host
limits, logs one warning line, counts ``rk_spider_host_budget_local_total``, and asks the
backend again ``RETRY_S`` later; it logs once more when the backend answers again.
Concurrency (``per_host_concurrency``) stays per process: the shared interval already bounds
how many requests the fleet has in flight on a host (a request's duration over the
interval), and a fleet-wide lease of slots would need a release round trip per request and
expiries for spiders that die holding one.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Protocol

from rk.core.api.wire import HostTokensWanted
from rk.core.config import SpiderSettings
from rk.core.runtime import worker_metrics
from rk.core.runtime.client import BackendClient, BackendError
from rk.core.runtime.http import Clock, SystemClock

log = logging.getLogger(__name__)

RETRY_S = 30.0
"""How long a spider keeps its own limits after the backend failed before asking again."""
TIMEOUT_S = 5.0
"""The longest a request waits on the backend for starts before the spider falls back."""
GRACE_S = 0.01
"""A start this late is still used (event loop and timer granularity); later ones are dropped."""


class HostBudget(Protocol):
    """What the polite client consults before each request start on a host."""

    async def turn(self, host: str, interval_s: float) -> bool:
        """Wait for this spider's next start on ``host``; False: keep the local limits."""
        ...

    async def pause(self, host: str, seconds: float, interval_s: float) -> None:
        """Tell every spider that ``host`` asked for no request within ``seconds``."""
        ...


class FleetBudget:
    """Starts on each host taken from the backend in batches; local limits when it is away."""

    def __init__(
        self,
        client: BackendClient,
        batch: int,
        clock: Clock | None = None,
        retry_s: float = RETRY_S,
    ) -> None:
        self._client = client
        self._batch = max(1, batch)
        self._clock = clock or SystemClock()
        self._retry_s = retry_s
        self._starts: dict[str, deque[float]] = {}
        self._paused_until: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._local_until: float | None = None

    def _lock(self, host: str) -> asyncio.Lock:
        return self._locks.setdefault(host, asyncio.Lock())

    def _next_start(self, host: str) -> float | None:
        """This spider's next unused start on ``host`` (dropping those that passed)."""
        starts = self._starts.get(host)
        late = self._clock.now() - GRACE_S
        while starts and starts[0] < late:
            starts.popleft()
        return starts.popleft() if starts else None

    def _local(self) -> bool:
        """Whether the backend failed less than ``retry_s`` ago (keep local limits)."""
        return self._local_until is not None and self._clock.now() < self._local_until

    async def turn(self, host: str, interval_s: float) -> bool:
        """Sleep until this spider's next start on ``host``, taking a batch when none is left."""
        while True:
            start = self._next_start(host)
            if start is not None:
                wait = start - self._clock.now()
                if wait > 0:
                    await self._clock.sleep(wait)
                if start + GRACE_S >= self._paused_until.get(host, start):
                    return True
                continue  # a Retry-After came while it waited: its start is void
            if self._local():
                return False
            async with self._lock(host):
                if self._local():
                    return False
                if not self._starts.get(host) and not await self._take(host, interval_s, 0.0):
                    return False

    async def pause(self, host: str, seconds: float, interval_s: float) -> None:
        """Drop this spider's starts on ``host`` and take new ones ``seconds`` from now."""
        self._paused_until[host] = self._clock.now() + seconds
        self._starts.pop(host, None)
        if self._local():
            return
        async with self._lock(host):
            self._starts.pop(host, None)
            await self._take(host, interval_s, seconds)

    async def _take(self, host: str, interval_s: float, pause_s: float) -> bool:
        """Ask the backend for a batch of starts; False (and local limits) when it fails."""
        wanted = HostTokensWanted(
            host=host.lower(), want=self._batch, interval_s=interval_s, pause_s=pause_s
        )
        try:
            tokens = await self._client.host_tokens(wanted, TIMEOUT_S)
        except BackendError as exc:
            self._fall_back(host, exc)
            return False
        if self._local_until is not None:
            log.info("host budget: the backend answers again; %s keeps the fleet's pace", host)
            self._local_until = None
        first = self._clock.now() + tokens.wait_s
        self._starts[host] = deque(first + k * interval_s for k in range(tokens.granted))
        return True

    def _fall_back(self, host: str, exc: BackendError) -> None:
        """Keep local limits for ``retry_s``; say so once per outage."""
        if self._local_until is None:
            worker_metrics.HOST_BUDGET_LOCAL.inc()
            log.warning(
                "host budget: %s; %s and every other host keep this spider's own limits "
                "(spider.min_interval_s per process) until the backend answers",
                exc,
                host,
            )
        self._local_until = self._clock.now() + self._retry_s


def fleet_budget(settings: SpiderSettings, client: BackendClient | None) -> FleetBudget | None:
    """The shared host budget of a spider that talks to a backend (None: local limits only)."""
    if client is None or settings.fleet_batch == 0:
        return None
    return FleetBudget(client, settings.fleet_batch)
