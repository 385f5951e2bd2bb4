"""robots.txt in the polite client, against a real local server: what it refuses is never
sent, its answers decide (4xx allows, 5xx refuses until a retry reads it, redirects are
followed), Crawl-delay sets the interval, ``ignore`` fetches anyway and warns once a host.
Time is a fake clock's: the tests read intervals and start times, never the wall clock."""

from __future__ import annotations

import asyncio
import logging

import httpx
import msgspec
import pytest

from rk import __version__
from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.core.config import SpiderSettings
from rk.core.runtime import worker_metrics
from rk.core.runtime.http import polite_client
from rk.core.runtime.robots import CACHE_S, RETRY_UNREACHABLE_S, RobotsRefused, RobotsUnreachable
from rk.core.runtime.robots_shows import without_refused

from .conftest import Reply, ScriptServer

BASE = SpiderSettings(min_interval_s=0.0, timeout_s=5.0, retries=0, backoff_base_s=0.01)
ROBOTS = b"User-agent: *\nDisallow: /\n\nUser-agent: rk\nDisallow: /private\nAllow: /private/ok\n"


def settings(**changes: object) -> SpiderSettings:
    """BASE with some fields changed."""
    return msgspec.structs.replace(BASE, **changes)


class FakeClock:
    """The transport's clock: ``sleep`` moves time on at once."""

    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds
        await asyncio.sleep(0)


class Starts(httpx.AsyncBaseTransport):
    """The real transport, noting the fake time each request leaves for the wire."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.inner = httpx.AsyncHTTPTransport(retries=0)
        self.sent: list[tuple[float, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((self.clock.now(), request.url.path))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def refused_requests() -> float:
    """``rk_spider_robots_refused_total{what="request"}`` so far in this process."""
    found = worker_metrics.REGISTRY.get_sample_value(
        "rk_spider_robots_refused_total", {"what": "request"}
    )
    return found or 0.0


async def test_a_disallowed_page_is_never_sent_and_counted(site: ScriptServer) -> None:
    site.script("/robots.txt", Reply(200, ROBOTS))
    for path in ("/public", "/private/secret", "/private/ok"):
        site.script(path, Reply(200, b"page"))
    before = refused_requests()
    async with polite_client(BASE) as client:
        assert (await client.get(site.url("/public"))).status_code == 200
        with pytest.raises(RobotsRefused, match="robots.txt disallows /private/secret"):
            await client.get(site.url("/private/secret"))
        assert (await client.get(site.url("/private/ok"))).status_code == 200
        assert await client.robots.allows(site.url("/private/x")) is False
    assert site.hits("/private/secret") == []
    assert len(site.hits("/public")) == len(site.hits("/private/ok")) == 1
    assert len(site.hits("/robots.txt")) == 1  # cached for the origin
    assert refused_requests() == before + 1


async def test_a_redirect_to_a_disallowed_page_is_not_followed(site: ScriptServer) -> None:
    site.script("/robots.txt", Reply(200, ROBOTS))
    site.script("/moved", Reply(302, headers={"Location": "/private/secret"}))
    async with polite_client(BASE) as client:
        with pytest.raises(RobotsRefused):
            await client.get(site.url("/moved"))
    assert len(site.hits("/moved")) == 1
    assert site.hits("/private/secret") == []


@pytest.mark.parametrize("status", [401, 403, 404, 410])
async def test_a_4xx_robots_txt_allows_everything(site: ScriptServer, status: int) -> None:
    site.script("/robots.txt", Reply(status, b"User-agent: *\nDisallow: /\n"))
    site.script("/page", Reply(200, b"page"))
    async with polite_client(BASE) as client:
        assert (await client.get(site.url("/page"))).content == b"page"
    assert len(site.hits("/page")) == 1


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_a_5xx_robots_txt_refuses_the_host_until_a_retry_reads_it(
    site: ScriptServer, status: int
) -> None:
    site.script("/robots.txt", Reply(status), Reply(200, b"User-agent: rk\nAllow: /\n"))
    site.script("/page", Reply(200, b"page"))
    clock = FakeClock()
    async with polite_client(BASE, clock=clock) as client:
        with pytest.raises(RobotsUnreachable, match=f"robots.txt answered HTTP {status}") as info:
            await client.get(site.url("/page"))
        assert info.value.retry_in_s == RETRY_UNREACHABLE_S
        clock.t += RETRY_UNREACHABLE_S - 1
        with pytest.raises(RobotsUnreachable) as info:
            await client.get(site.url("/page"))
        assert info.value.retry_in_s == 1
        with pytest.raises(RobotsUnreachable):
            await client.robots.allows(site.url("/image.jpg"))  # not known yet: not a "no"
        assert len(site.hits("/robots.txt")) == 1
        assert site.hits("/page") == []
        clock.t += 1
        assert (await client.get(site.url("/page"))).content == b"page"
    assert len(site.hits("/robots.txt")) == 2


async def test_robots_retry_s_sets_how_long_an_unreadable_robots_txt_refuses(
    site: ScriptServer,
) -> None:
    site.script("/robots.txt", Reply(503), Reply(200, b"User-agent: rk\nAllow: /\n"))
    site.script("/page", Reply(200, b"page"))
    clock = FakeClock()
    async with polite_client(settings(robots_retry_s=5.0), clock=clock) as client:
        with pytest.raises(RobotsUnreachable) as info:
            await client.get(site.url("/page"))
        assert info.value.retry_in_s == 5.0
        clock.t += 5
        assert (await client.get(site.url("/page"))).content == b"page"
    assert len(site.hits("/robots.txt")) == 2


async def test_robots_txt_is_read_again_after_24_hours(site: ScriptServer) -> None:
    site.script("/robots.txt", Reply(200, b"User-agent: rk\nAllow: /\n"), Reply(200, ROBOTS))
    site.script("/private/x", Reply(200))
    clock = FakeClock()
    async with polite_client(BASE, clock=clock) as client:
        await client.get(site.url("/private/x"))
        clock.t += CACHE_S - 1
        await client.get(site.url("/private/x"))
        clock.t += 1
        with pytest.raises(RobotsRefused):
            await client.get(site.url("/private/x"))
    assert len(site.hits("/robots.txt")) == 2
    assert len(site.hits("/private/x")) == 2


@pytest.mark.parametrize(("redirects", "obeyed"), [(5, True), (6, False)])
async def test_redirects_are_followed_up_to_five(
    site: ScriptServer, redirects: int, obeyed: bool
) -> None:
    """Past five redirects robots.txt counts as unavailable (a 4xx): everything is allowed."""
    site.script("/robots.txt", Reply(301, headers={"Location": "/r1"}))
    for n in range(1, redirects):
        site.script(f"/r{n}", Reply(302, headers={"Location": f"/r{n + 1}"}))
    site.script(f"/r{redirects}", Reply(200, b"User-agent: rk\nDisallow: /page\n"))
    site.script("/page", Reply(200))
    async with polite_client(BASE) as client:
        assert await client.robots.allows(site.url("/page")) is not obeyed
    assert len(site.hits(f"/r{redirects}")) == int(obeyed)


async def test_an_unreachable_host_fails_with_its_network_error(site: ScriptServer) -> None:
    from tests.support.net import free_port

    async with polite_client(BASE) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{free_port()}/page")


async def test_crawl_delay_is_a_floor_on_the_interval(site: ScriptServer) -> None:
    site.script("/robots.txt", Reply(200, b"User-agent: rk\nCrawl-delay: 5\n"))
    site.script("/page", Reply(200))
    clock = FakeClock()
    starts = Starts(clock)
    async with polite_client(settings(min_interval_s=0.5), starts, clock) as client:
        assert client.interval_s("127.0.0.1") == 0.5
        for _ in range(3):
            await client.get(site.url("/page"))
        assert client.interval_s("127.0.0.1") == 5.0
    # On the fake clock: robots.txt at 100, then each page a Crawl-delay after the last start.
    assert starts.sent == [
        (100.0, "/robots.txt"),
        (105.0, "/page"),
        (110.0, "/page"),
        (115.0, "/page"),
    ]


async def test_a_short_crawl_delay_does_not_lower_the_interval(site: ScriptServer) -> None:
    site.script("/robots.txt", Reply(200, b"User-agent: rk\nCrawl-delay: 0.1\n"))
    site.script("/page", Reply(200))
    async with polite_client(settings(min_interval_s=0.5), clock=FakeClock()) as client:
        await client.get(site.url("/page"))
        assert client.interval_s("127.0.0.1") == 0.5


async def test_ignore_fetches_anyway_and_warns_once_per_host(
    site: ScriptServer, caplog: pytest.LogCaptureFixture
) -> None:
    site.script("/robots.txt", Reply(200, b"User-agent: *\nDisallow: /\nCrawl-delay: 60\n"))
    site.script("/private/secret", Reply(200))
    caplog.set_level(logging.WARNING, logger="rk.core.runtime.robots")
    async with polite_client(settings(robots="ignore")) as client:
        for host in ("127.0.0.1", "127.0.0.1", "localhost", "localhost"):
            await client.get(site.url("/private/secret", host=host))
        assert client.interval_s("127.0.0.1") == 0.0
    assert len(site.hits("/private/secret")) == 4
    assert site.hits("/robots.txt") == []
    warnings = [
        r.getMessage() for r in caplog.records if "spider.robots is ignore" in r.getMessage()
    ]
    assert len(warnings) == 2
    assert "robots.txt of 127.0.0.1 is not read" in warnings[0]
    assert "robots.txt of localhost is not read" in warnings[1]


async def test_the_user_agent_names_rk_and_the_contact(site: ScriptServer) -> None:
    site.script("/page", Reply(200))
    contact = "https://archive.example.org/crawler"
    async with polite_client(settings(contact=contact)) as client:
        await client.get(site.url("/page"))
    agent = f"rk/{__version__} (+{contact})"
    assert site.hits("/robots.txt")[0].headers["User-Agent"] == agent
    assert site.hits("/page")[0].headers["User-Agent"] == agent


async def test_an_image_behind_an_unreadable_robots_txt_is_not_left_out(
    site: ScriptServer,
) -> None:
    """Images on a host whose robots.txt answers 503 are not "refused" and dropped from
    their show: the check raises, so the crawl waits for an answer instead."""
    site.script("/robots.txt", Reply(503))
    show = ShowIngest(
        source="vogue",
        kind="runway",
        show_key="fall-2031-ready-to-wear/kestrel-vine",
        title="Fall 2031 Ready-to-Wear",
        looks=[Look(number=1, image=ImageRef(url=site.url("/1.jpg")))],
    )
    async with polite_client(BASE) as client:
        with pytest.raises(RobotsUnreachable, match="robots.txt answered HTTP 503"):
            await without_refused(show, client.robots)
    assert site.hits("/1.jpg") == []
