"""The polite source client against a real local server that answers 429/503/404/slowly."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import httpx
import pytest

from rk.core.config import SpiderSettings
from rk.core.runtime.http import polite_client
from tests.support.fake_clock import FakeClock
from tests.support.net import free_port

from .conftest import Reply, ScriptServer

FAST = SpiderSettings(
    per_host_concurrency=4,
    min_interval_s=0.0,
    timeout_s=5.0,
    retries=3,
    backoff_base_s=0.01,
    backoff_max_s=2.0,
)


def settings(**changes: object) -> SpiderSettings:
    """FAST with some fields changed."""
    import msgspec

    return msgspec.structs.replace(FAST, **changes)


async def test_retry_after_is_honoured(
    site: ScriptServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = site.script("/limited", Reply(429, headers={"Retry-After": "1"}), Reply(200, b"fine"))
    caplog.set_level(logging.INFO, logger="rk.core.runtime.http")
    clock = FakeClock()
    async with polite_client(FAST, clock=clock) as client:
        response = await client.get(url)
    assert (response.status_code, response.content) == (200, b"fine")
    assert len(site.hits("/limited")) == 2
    # The backoff alone would wait at most 0.01 s: the one wait of 1 s is the header obeyed.
    assert clock.sleeps == [1.0]
    assert "retry after 1.00 s" in caplog.text
    assert "HTTP 429, retry 1/3" in caplog.text


async def test_retry_after_is_capped_at_backoff_max(
    site: ScriptServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = site.script("/later", Reply(503, headers={"Retry-After": "3600"}), Reply(200))
    async with polite_client(settings(backoff_max_s=0.05)) as client:
        response = await client.get(url)
    assert response.status_code == 200
    assert len(site.hits("/later")) == 2
    assert "Retry-After 3600 s exceeds backoff_max_s, waiting 0.05 s" in caplog.text


async def test_503_twice_then_ok(site: ScriptServer) -> None:
    url = site.script("/flaky", Reply(503), Reply(503), Reply(200, b"third time"))
    async with polite_client(FAST) as client:
        response = await client.get(url)
    assert response.content == b"third time"
    assert len(site.hits("/flaky")) == 3


async def test_every_retryable_status_is_retried(site: ScriptServer) -> None:
    for status in (500, 502, 504):
        site.script(f"/s{status}", Reply(status), Reply(200))
    async with polite_client(FAST) as client:
        for status in (500, 502, 504):
            assert (await client.get(site.url(f"/s{status}"))).status_code == 200
            assert len(site.hits(f"/s{status}")) == 2


@pytest.mark.parametrize("status", [404, 400, 403, 410])
async def test_other_4xx_is_not_retried(site: ScriptServer, status: int) -> None:
    url = site.script("/gone", Reply(status, b"no"))
    async with polite_client(FAST) as client:
        response = await client.get(url)
    assert response.status_code == status
    assert len(site.hits("/gone")) == 1


async def test_last_response_is_returned_after_the_last_retry(site: ScriptServer) -> None:
    url = site.script("/down", Reply(503, b"still down"))
    async with polite_client(settings(retries=2)) as client:
        response = await client.get(url)
    assert (response.status_code, response.content) == (503, b"still down")
    assert len(site.hits("/down")) == 3


async def test_slow_answer_times_out_is_retried_then_raises(site: ScriptServer) -> None:
    url = site.script("/slow", Reply(200, delay_s=3.0))
    async with polite_client(settings(timeout_s=0.2, retries=2)) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(url)
    assert len(site.hits("/slow")) == 3


async def test_connection_refused_is_retried_then_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"http://127.0.0.1:{free_port()}/nothing-here"
    # robots: ignore, so the page itself is tried (obeyed, robots.txt is: test_robots_client).
    async with polite_client(settings(retries=2, robots="ignore")) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(url)
    retries = [r.getMessage() for r in caplog.records if "ConnectError, retry" in r.getMessage()]
    assert len(retries) == 2
    assert retries[0].startswith("GET 127.0.0.1/nothing-here: ConnectError, retry 1/2 in")


async def test_per_host_concurrency_is_the_configured_limit(site: ScriptServer) -> None:
    url = site.script("/busy", Reply(200, delay_s=0.15))
    async with polite_client(settings(per_host_concurrency=3)) as client:
        answers = await asyncio.gather(*(client.get(url) for _ in range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert len(site.hits("/busy")) == 10
    assert site.max_in_flight == 3


async def test_hosts_have_separate_limits(site: ScriptServer) -> None:
    site.script("/busy", Reply(200, delay_s=0.3))
    urls = [site.url("/busy"), site.url("/busy", host="localhost")]
    async with polite_client(settings(per_host_concurrency=1)) as client:
        await asyncio.gather(*(client.get(url) for url in urls))
    assert site.max_in_flight == 2


async def test_slot_is_held_until_the_body_is_closed(site: ScriptServer) -> None:
    url = site.script("/file", Reply(200, b"x" * 10_000))
    async with polite_client(settings(per_host_concurrency=1)) as client:
        async with client.stream("GET", url) as streaming:
            second = asyncio.create_task(client.get(url))
            await asyncio.sleep(0.2)
            assert len(site.hits("/file")) == 1
            await streaming.aread()
        await second
    assert len(site.hits("/file")) == 2


class StartTimes(httpx.AsyncBaseTransport):
    """The real transport, noting the fake time each request leaves the polite layer."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.inner = httpx.AsyncHTTPTransport(retries=0)
        self.starts: list[float] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.starts.append(self.clock.now())
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_min_interval_between_request_starts(site: ScriptServer) -> None:
    url = site.script("/page", Reply(200))
    clock = FakeClock()
    starts = StartTimes(clock)
    polite = settings(min_interval_s=0.2, robots="ignore")
    async with polite_client(polite, inner=starts, clock=clock) as client:
        before = clock.now()
        await asyncio.gather(*(client.get(url) for _ in range(5)))
    assert len(site.hits("/page")) == 5
    # The k-th request to go out leaves no earlier than k intervals after the burst began,
    # on the transport's own clock (a fake one: no real time is measured or waited for).
    for k, start in enumerate(sorted(starts.starts)):
        assert start - before >= k * 0.2 - 1e-9, f"request {k} went out too early"
    assert len(clock.sleeps) == 4, "every request after the first waited for its turn"


async def test_user_agent_is_sent(site: ScriptServer) -> None:
    url = site.script("/ua", Reply(200))
    ua = "rk-test-agent/1.0 (+https://example.org/rk)"
    async with polite_client(settings(user_agent=ua)) as client:
        await client.get(url)
    (seen,) = site.hits("/ua")
    assert seen.headers["User-Agent"] == ua


async def test_buffered_post_is_retried_streamed_post_is_not(site: ScriptServer) -> None:
    site.script("/form", Reply(503), Reply(200))
    site.script("/upload", Reply(503), Reply(200))

    async def chunks() -> AsyncIterator[bytes]:
        yield b"part one "
        yield b"part two"

    async with polite_client(FAST) as client:
        buffered = await client.post(site.url("/form"), content=b"a=1")
        streamed = await client.post(site.url("/upload"), content=chunks())
    assert buffered.status_code == 200
    assert [s.body for s in site.hits("/form")] == [b"a=1", b"a=1"]
    assert streamed.status_code == 503
    assert [s.body for s in site.hits("/upload")] == [b"part one part two"]
