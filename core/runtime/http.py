"""The one polite HTTP client every source request goes through.

Politeness lives in a transport, so source plugins get a plain ``httpx.AsyncClient`` and
never see it: per-host concurrency and a minimum interval between request starts, retries
on transport errors, 429 and 500/502/503/504 with full-jitter exponential backoff, and
``Retry-After`` honoured (capped at ``backoff_max_s``). A 404 or any other 4xx is final.
After the last retry the last response is returned (callers see the 429/503) or the last
transport error is raised.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import AsyncIterator, Callable

import httpx

from rk.core.config import SpiderSettings

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


class _Host:
    """Per-host politeness state: a concurrency slot pool and the next allowed start."""

    def __init__(self, concurrency: int) -> None:
        self.slots = asyncio.Semaphore(max(1, concurrency))
        self.next_start = 0.0


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
    ) -> None:
        self.settings = settings
        self._inner = inner or httpx.AsyncHTTPTransport(retries=0)
        self._hosts: dict[str, _Host] = {}

    def _host(self, host: str) -> _Host:
        state = self._hosts.get(host)
        if state is None:
            state = self._hosts[host] = _Host(self.settings.per_host_concurrency)
        return state

    async def _wait_turn(self, state: _Host) -> None:
        """Reserve the next start time on this host and sleep until it comes."""
        now = time.monotonic()
        start = max(now, state.next_start)
        state.next_start = start + self.settings.min_interval_s
        if start > now:
            await asyncio.sleep(start - now)

    async def _send_once(self, request: httpx.Request, state: _Host) -> httpx.Response:
        await state.slots.acquire()
        try:
            await self._wait_turn(state)
            response = await self._inner.handle_async_request(request)
        except BaseException:
            state.slots.release()
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _ReleasingStream(response.stream, state.slots.release)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` politely, retrying what is worth retrying."""
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
                await asyncio.sleep(wait)
                continue
            if response.status_code not in RETRY_STATUSES or last:
                return response
            wait = self._wait_for(response, attempt, target)
            await response.aclose()
            log.warning(
                "%s: HTTP %d, retry %d/%d in %.2f s",
                target,
                response.status_code,
                attempt + 1,
                retries,
                wait,
            )
            await asyncio.sleep(wait)
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


def polite_client(
    settings: SpiderSettings, inner: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The shared source client: polite transport, per-request timeout, real user agent."""
    return httpx.AsyncClient(
        transport=PoliteTransport(settings, inner),
        timeout=httpx.Timeout(settings.timeout_s),
        headers={"User-Agent": settings.user_agent},
        follow_redirects=True,
    )
