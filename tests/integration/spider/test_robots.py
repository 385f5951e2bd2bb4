"""robots.txt on the local Vogue-like site: what it disallows, pages and images, is never
fetched (the site's own record of requests shows it), by the spider or by the backend,
and what it refused is in the task's result and the spider's metrics.

The site's robots.txt shuts out every crawler but rk, and rk from one show's page, from
every photo of another show but its first look, and from one rendition of a third show.
"""

from __future__ import annotations

import httpx
import msgspec
import pytest

from rk.core.api.errors import SourceError
from rk.core.api.sources import BrandTarget
from rk.core.api.wire import ShowIngest
from rk.core.config import SpiderSettings
from rk.core.runtime.crawler import crawl
from rk.core.runtime.http import polite_client
from rk.plugins.vogue.source import VogueSource
from tests.integration.server.test_operations import samples, value
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E
from tests.integration.spider.photos import PhotoSite
from tests.integration.spider.procs import eventually
from tests.integration.spider.test_faults import done_task
from tests.support.net import free_port

BRAND = "Kestrel & Vine"
ROBOTS = (
    b"User-agent: *\n"
    b"Disallow: /\n"
    b"\n"
    b"User-agent: rk\n"
    b"Disallow: /fashion-shows/copenhagen-fall-2031/\n"
    b"Disallow: /photos/*-spring-2031-menswear-\n"
    b"Allow: /photos/*/00001-kestrel-vine-spring-2031-menswear-credit\n"
    b"Disallow: /photos/*/w_360,c_limit/00002-kestrel-vine-sao-paolo-\n"
)
REFUSED_SHOW = "copenhagen-fall-2031/kestrel-vine"
SPIDER = SpiderSettings(min_interval_s=0, retries=0, timeout_s=10)


def refused(path: str) -> bool:
    """Whether ROBOTS disallows ``path`` for rk, read by hand (not by rk's matcher)."""
    menswear = "-spring-2031-menswear-" in path and path.startswith("/photos/")
    return (
        path.startswith("/fashion-shows/copenhagen-fall-2031/")
        or (menswear and "/00001-kestrel-vine-spring-2031-menswear-credit" not in path)
        or "/w_360,c_limit/00002-kestrel-vine-sao-paolo-" in path
    )


def allowed_part(show: ShowIngest) -> ShowIngest:
    """The show as it must arrive: refused images left out, refused renditions unnamed."""

    def keep(url: str | None) -> str | None:
        return url if url and not refused(httpx.URL(url).path) else None

    looks = [
        msgspec.structs.replace(
            look, image=msgspec.structs.replace(look.image, thumb_url=keep(look.image.thumb_url))
        )
        for look in show.looks
        if keep(look.image.url)
    ]
    details = [
        msgspec.structs.replace(ref, thumb_url=keep(ref.thumb_url))
        for ref in show.details
        if keep(ref.url)
    ]
    return msgspec.structs.replace(show, looks=looks, details=details)


async def expected(site: PhotoSite) -> tuple[list[ShowIngest], int]:
    """The shows a crawl under ROBOTS sends, and how many images it leaves out."""
    everything = await archive.expected_shows(site, BRAND)
    site.hits.clear()  # what the test read is not the crawl's
    shows = [allowed_part(show) for show in everything if show.show_key != REFUSED_SHOW]
    images = sum(len(show.images()) for show in everything if show.show_key != REFUSED_SHOW)
    return shows, images - sum(len(show.images()) for show in shows)


async def test_a_crawl_sends_nothing_robots_txt_refuses(site: PhotoSite) -> None:
    """Without direct upload the backend would download every image URL it is sent."""
    site.route("/robots.txt", body=ROBOTS, headers={"Content-Type": "text/plain"})
    want, left_out = await expected(site)
    sent: list[ShowIngest] = []

    async def sink(show: ShowIngest) -> None:
        sent.append(show)

    async with polite_client(SPIDER) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        stats = await crawl(vogue, BrandTarget(name=BRAND), None, sink, robots=http.robots)
    assert left_out == 7
    assert (stats.shows, stats.refused, stats.images_refused) == (2, 1, left_out)
    assert stats.result_text() == "1 show and 7 images refused by robots.txt"
    assert sorted(sent, key=lambda s: s.show_key) == sorted(want, key=lambda s: s.show_key)
    assert site.paths("/robots.txt") == ["/robots.txt"]
    assert not [path for path in site.paths() if refused(path)]


async def test_a_robots_txt_answering_503_fetches_nothing_else(site: PhotoSite) -> None:
    site.route("/robots.txt", status=503, body=b"down for maintenance")

    async def sink(show: ShowIngest) -> None:
        raise AssertionError(f"{show.show_key} was sent")

    async with polite_client(SPIDER) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        with pytest.raises(SourceError, match="robots.txt answered HTTP 503"):
            await crawl(vogue, BrandTarget(name=BRAND), None, sink, robots=http.robots)
    assert set(site.paths()) == {"/robots.txt"}


async def test_spider_serve_reports_and_counts_what_robots_txt_refused(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    e2e.site.route("/robots.txt", body=ROBOTS, headers={"Content-Type": "text/plain"})
    want, left_out = await expected(e2e.site)
    backend = e2e.backend()
    _, task_id = await e2e.queue(BRAND)
    metrics_port = free_port()
    spider = e2e.spider(
        "spider", backend, "-w", "1", "-i", "1", "--metrics-port", str(metrics_port)
    )

    row = await eventually(lambda: done_task(task_id), "the crawl done")
    await eventually(archive.jobs_done, "every ingest job finished")
    assert row["shows_submitted"] == len(want) == 2
    assert row["last_error"] == f"1 show and {left_out} images refused by robots.txt"
    await archive.check_archived(e2e.site, want, backend.media_path)
    assert len(await archive.articles()) == len(want)
    # Neither the spider nor the backend asked the site for anything robots.txt disallows.
    assert not [path for path in e2e.site.paths() if refused(path)]
    assert e2e.site.paths("/photos/")

    await spider.wait_for(f"task {task_id} done: .*; 1 show and {left_out} images refused")
    async with httpx.AsyncClient() as client:
        found = samples((await client.get(f"http://127.0.0.1:{metrics_port}/metrics")).text)
    assert value(found, "rk_spider_robots_refused_total", what="image") == left_out
    assert value(found, "rk_spider_robots_refused_total", what="request") == 1
    assert value(found, "rk_spider_shows_total", outcome="refused") == 1
    assert value(found, "rk_spider_shows_total", outcome="submitted") == 2


async def test_a_task_waits_for_a_robots_txt_answering_503_and_loses_no_show(
    e2e_sqlite: E2E,
) -> None:
    """A site's passing outage that catches robots.txt: the task holds on, reads it again after
    ``robots_retry_s``, crawls the whole brand on its first attempt; nothing else was fetched
    while robots.txt could not be read."""
    e2e = e2e_sqlite
    want = await archive.expected_shows(e2e.site, BRAND)
    e2e.site.hits.clear()
    # The spider tries each request twice (retries: 1): two answers make one unreadable read.
    e2e.site.route("/robots.txt", status=503, body=b"down for maintenance", times=2)
    backend = e2e.backend()
    _, task_id = await e2e.queue(BRAND)
    spider = e2e.spider("spider", backend, "-w", "1", "-i", "1", spider={"robots_retry_s": 1})

    row = await eventually(lambda: done_task(task_id), "the crawl done")
    await eventually(archive.jobs_done, "every ingest job finished")
    assert (row["attempts"], row["shows_submitted"], row["last_error"]) == (1, len(want), "")
    await archive.check_archived(e2e.site, want, backend.media_path)
    assert e2e.site.paths()[:3] == ["/robots.txt"] * 3
    await spider.wait_for(
        r"robots.txt: http://[^ ]+/robots.txt answered HTTP 503, .*; waiting 1 s for it, "
        r"then the brand starts over \(wait 1 of 5\)"
    )
