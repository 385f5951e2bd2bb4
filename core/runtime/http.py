"""The one polite HTTP client every source request goes through.

Politeness lives in a transport, so source plugins get a plain ``httpx.AsyncClient`` and
never see it: per-host concurrency and a minimum interval between request starts, retries
on transport errors, 429 and 500/502/503/504 with full-jitter exponential backoff, and
``Retry-After`` honoured (capped at ``backoff_max_s``). A 404 or any other 4xx is final.
After the last retry the last response is returned (callers see the 429/503) or the last
transport error is raised. Before any of that, robots.txt (``rk.core.runtime.robots``) is
asked: a refused request raises ``RobotsRefused`` unsent, and a ``Crawl-delay`` longer than
``min_interval_s`` becomes the host's interval. With a ``HostBudget``
(``rk.core.runtime.host_budget``) each start on a host is one the fleet's shared budget gave
this spider, and a ``Retry-After`` is reported to it, so every spider slows down.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Protocol

import httpx

from rk.core.config import SpiderSettings
from rk.core.runtime import worker_metrics
from rk.core.runtime.robots import Robots, RobotsGate, fetch_robots, target

if TYPE_CHECKING:
    from rk.core.runtime.host_budget import HostBudget

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or HTTP-date); None if absent."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def backoff_s(attempt: int, base_s: float, max_s: float) -> float:
    """Full-jitter exponential backoff for retry number ``attempt`` (0-based)."""
    return random.random() * min(max_s, base_s * 2.0 ** min(attempt, 30))


class Clock(Protocol):
    """Where the transport reads the time and waits: the system's, or a test's fake one."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class SystemClock:
    """``time.monotonic`` and ``asyncio.sleep``."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Sleep on the event loop."""
        await asyncio.sleep(seconds)


class _Host:
    """Per-host politeness state: a concurrency slot pool, the interval between request
    starts and the last start reserved."""

    def __init__(self, concurrency: int, interval: float) -> None:
        self.slots = asyncio.Semaphore(max(1, concurrency))
        self.interval = interval
        self.last_start = -math.inf


class _ReleasingStream(httpx.AsyncByteStream):
    """A response body that gives the host slot back when it is closed."""

    def __init__(self, inner: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self._inner = inner
        self._release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if self._release is not None:
                self._release()
                self._release = None


class PoliteTransport(httpx.AsyncBaseTransport):
    """Wraps a transport with per-host limits, retries, backoff and ``Retry-After``.

    A host slot is held from the request's start until its response body is closed, so
    a download in progress counts against the host's concurrency.
    """

    def __init__(
        self,
        settings: SpiderSettings,
        inner: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
        budget: HostBudget | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock or SystemClock()
        self.budget = budget
        self._inner = inner or httpx.AsyncHTTPTransport(retries=0)
        self._hosts: dict[str, _Host] = {}
        self.robots = RobotsGate(
            settings.robots, self._fetch_robots, self.clock.now, settings.robots_retry_s
        )

    def _host(self, host: str) -> _Host:
        state = self._hosts.get(host)
        if state is None:
            state = _Host(self.settings.per_host_concurrency, self.settings.min_interval_s)
            self._hosts[host] = state
        return state

    def interval_s(self, host: str) -> float:
        """Seconds between request starts on ``host``: ``min_interval_s`` or its Crawl-delay."""
        return self._host(host).interval

    async def _wait_turn(self, host: str, state: _Host) -> None:
        """Sleep until this spider's next start on ``host``: the fleet's, else a local one."""
        if self.budget is not None and await self.budget.turn(host, state.interval):
            state.last_start = self.clock.now()
            return
        now = self.clock.now()
        start = max(now, state.last_start + state.interval)
        state.last_start = start
        if start > now:
            await self.clock.sleep(start - now)

    async def _fetch_robots(self, site: str) -> Robots:
        """The robots.txt of origin ``site``, fetched politely (and never itself refused)."""

        async def get(url: str) -> httpx.Response:
            timeout = httpx.Timeout(self.settings.timeout_s).as_dict()
            headers = {"User-Agent": self.settings.effective_user_agent}
            request = httpx.Request("GET", url, headers=headers, extensions={"timeout": timeout})
            return await self._send(request)

        return await fetch_robots(site, get)

    async def _obey_robots(self, request: httpx.Request) -> None:
        """Raise RobotsRefused when robots.txt refuses ``request``; apply its Crawl-delay."""
        robots = await self.robots.rules(request.url)
        if robots is None:
            return
        state = self._host(request.url.host)
        floor = max(self.settings.min_interval_s, robots.crawl_delay or 0.0)
        if floor != state.interval:
            log.info("%s: robots.txt Crawl-delay makes the interval %g s", request.url.host, floor)
            state.interval = floor
        if not robots.allows(target(request.url)):
            worker_metrics.ROBOTS_REFUSED.labels("request").inc()
            error = self.robots.refused(request.url, robots, request)
            log.info("%s %s", request.method, error)
            raise error

    async def _send_once(self, request: httpx.Request, state: _Host) -> httpx.Response:
        await state.slots.acquire()
        try:
            await self._wait_turn(request.url.host, state)
            response = await self._inner.handle_async_request(request)
        except BaseException:
            state.slots.release()
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _ReleasingStream(response.stream, state.slots.release)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` politely if robots.txt allows it, retrying what is worth retrying."""
        await self._obey_robots(request)
        return await self._send(request)

    async def _send(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` within the host's limits, retrying what is worth retrying."""
        state = self._host(request.url.host)
        # A streamed body cannot be sent twice; only a buffered one (or none) is retried.
        replayable = isinstance(request.stream, httpx.ByteStream)
        retries = self.settings.retries if replayable else 0
        target = f"{request.method} {request.url.host}{request.url.path}"
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = await self._send_once(request, state)
            except httpx.TransportError as exc:
                if last:
                    raise
                wait = self._backoff(attempt)
                log.warning(
                    "%s: %s, retry %d/%d in %.2f s",
                    target,
                    type(exc).__name__,
                    attempt + 1,
                    retries,
                    wait,
                )
                await self.clock.sleep(wait)
                continue
            if response.status_code not in RETRY_STATUSES or last:
                return response
            wait = self._wait_for(response, attempt, target)
            await response.aclose()
            if self.budget is not None and "Retry-After" in response.headers:
                await self.budget.pause(request.url.host, wait, state.interval)
            log.warning(
                "%s: HTTP %d, retry %d/%d in %.2f s",
                target,
                response.status_code,
                attempt + 1,
                retries,
                wait,
            )
            await self.clock.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _backoff(self, attempt: int) -> float:
        s = self.settings
        return backoff_s(attempt, s.backoff_base_s, s.backoff_max_s)

    def _wait_for(self, response: httpx.Response, attempt: int, target: str) -> float:
        """The server's ``Retry-After`` (capped) when it sent one, else the backoff."""
        asked = retry_after_s(response.headers.get("Retry-After"))
        if asked is None:
            return self._backoff(attempt)
        cap = self.settings.backoff_max_s
        if asked > cap:
            log.warning(
                "%s: Retry-After %.0f s exceeds backoff_max_s, waiting %.2f s", target, asked, cap
            )
            return cap
        log.info("%s: server asked to retry after %.2f s", target, asked)
        return asked

    async def aclose(self) -> None:
        """Close the wrapped transport and its connections."""
        await self._inner.aclose()


class PoliteClient(httpx.AsyncClient):
    """The client source plugins get; ``robots`` tells whether a URL may be fetched at all."""

    def __init__(self, settings: SpiderSettings, transport: PoliteTransport) -> None:
        super().__init__(
            transport=transport,
            timeout=httpx.Timeout(settings.timeout_s),
            headers={"User-Agent": settings.effective_user_agent},
            follow_redirects=True,
        )
        self.robots = transport.robots
        self._polite = transport

    def interval_s(self, host: str) -> float:
        """Seconds between request starts on ``host`` (``min_interval_s`` or its Crawl-delay)."""
        return self._polite.interval_s(host)


def polite_client(
    settings: SpiderSettings,
    inner: httpx.AsyncBaseTransport | None = None,
    clock: Clock | None = None,
    budget: HostBudget | None = None,
) -> PoliteClient:
    """The shared source client: robots.txt, polite transport, per-request timeout, rk's agent;
    ``budget`` shares each host's pace with the other spiders of the archive."""
    return PoliteClient(settings, PoliteTransport(settings, inner, clock, budget))
