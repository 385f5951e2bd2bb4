"""``rk.core.runtime.crawler.crawl`` in process against the local Vogue-like site: how sink errors
end (or do not end) a crawl.
"""

from __future__ import annotations

import asyncio

from rk.core.api.sources import BrandTarget
from rk.core.api.wire import ShowIngest
from rk.core.config import SpiderSettings
from rk.core.runtime.client import BackendAuthError, BackendRejected
from rk.core.runtime.crawler import CrawlStats, crawl
from rk.core.runtime.http import polite_client
from rk.plugins.vogue.source import VogueSource
from tests.integration.spider.photos import PhotoSite

SPIDER = SpiderSettings(min_interval_s=0, retries=0, timeout_s=10)
BRAND = BrandTarget(uid="u1", name="Kestrel & Vine")


async def test_a_refused_show_is_counted_and_the_others_go_on(site: PhotoSite) -> None:
    refused = "copenhagen-fall-2031/kestrel-vine"
    submitted: list[str] = []

    async def sink(show: ShowIngest) -> None:
        if show.show_key == refused:
            raise BackendRejected(422, "unknown brand uid")
        submitted.append(show.show_key)

    async with polite_client(SPIDER) as http:
        stats = await crawl(VogueSource(http, {"base_url": site.base_url}), BRAND, None, sink)
    assert (stats.listed, stats.shows, stats.failed) == (3, 2, 1)
    assert stats.errors == [
        f"{refused}: backend refused it: backend rejected the request (HTTP 422): unknown brand uid"
    ]
    assert len(submitted) == 2
    assert refused not in submitted


async def test_a_fatal_sink_error_ends_the_crawl_and_nothing_else_is_submitted(
    site: PhotoSite,
) -> None:
    calls: list[str] = []

    async def sink(show: ShowIngest) -> None:
        calls.append(show.show_key)
        if len(calls) == 1:
            raise BackendAuthError("secret differs")
        await asyncio.sleep(0)

    site.slow_pages = 0.2
    async with polite_client(SPIDER) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        try:
            await crawl(vogue, BRAND, None, sink, concurrency=1)
        except BackendAuthError:
            pass
        else:
            raise AssertionError("the crawl went on after a fatal sink error")
        await asyncio.sleep(0.5)
    assert len(calls) == 1


SHOW_PAGE = "/fashion-shows/copenhagen-fall-2031/kestrel-vine"


async def crawled(site: PhotoSite) -> tuple[CrawlStats, list[str]]:
    """The brand crawled with passing failures fetched again after 0.05 s: stats, keys sent."""
    sent: list[str] = []

    async def sink(show: ShowIngest) -> None:
        sent.append(show.show_key)

    async with polite_client(SPIDER) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        return await crawl(vogue, BRAND, None, sink, show_retry_s=0.05), sent


def show_page_hits(site: PhotoSite) -> int:
    """How many times the show page itself was asked for."""
    return site.paths().count(SHOW_PAGE)


async def test_a_show_page_answering_503_is_fetched_again_and_not_lost(site: PhotoSite) -> None:
    """A passing outage of one show page: the show is fetched again after ``show_retry_s``
    (twice at most) and arrives; nothing is counted failed."""
    site.route(SHOW_PAGE, status=503, body=b"busy", times=2)
    stats, sent = await crawled(site)
    assert (stats.listed, stats.shows, stats.failed, stats.errors) == (3, 3, 0, [])
    assert "copenhagen-fall-2031/kestrel-vine" in sent
    assert show_page_hits(site) == 3


async def test_a_show_page_that_stays_down_fails_after_two_more_tries(site: PhotoSite) -> None:
    site.route(SHOW_PAGE, status=503, body=b"busy")
    stats, sent = await crawled(site)
    assert (stats.listed, stats.shows, stats.failed) == (3, 2, 1)
    assert len(stats.errors) == 1
    assert "answered HTTP 503" in stats.errors[0]
    assert "copenhagen-fall-2031/kestrel-vine" not in sent
    assert show_page_hits(site) == 3


async def test_a_show_page_answering_404_fails_at_once(site: PhotoSite) -> None:
    """A 404 will not pass: no second try."""
    site.route(SHOW_PAGE, status=404, body=b"gone")
    stats, _ = await crawled(site)
    assert (stats.shows, stats.failed) == (2, 1)
    assert show_page_hits(site) == 1
