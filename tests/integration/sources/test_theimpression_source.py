"""TheImpressionSource against the synthetic site over real HTTP: REST, RSS and listing routes."""

from __future__ import annotations

import logging
import re

import httpx
import msgspec
import pytest

from rk.core.api.errors import ConfigError, ShowSkipped, SourceError, SourceUnavailable
from rk.core.api.lookups import get_source
from rk.core.api.sources import ShowSummary
from rk.core.api.wire import ShowIngest
from rk.core.config import SpiderSettings
from rk.core.runtime.crawler import crawl
from rk.core.runtime.http import polite_client
from rk.plugins.theimpression.source import TheImpressionSource
from tests.support.sites import SiteServer, serve_wp_rest

REST = "/wp-json/wp/v2/posts"
PARIS = "street-style-paris-fashion-week-spring-2031-day-1"
SLUGS = [
    PARIS,
    "street-style-copenhagen-fashion-week-fall-2031-day-2",
    "street-style-coachella-2031",
    "the-others-milan-best-collections-spring-2031",
    "street-style-london-fashion-week-spring-2031-day-3",
    "street-style-new-york-fashion-week-spring-2031-day-4",
    "street-style-tokyo-fashion-week-fall-2031",
]


def source(site: SiteServer, client: httpx.AsyncClient, **options: object) -> TheImpressionSource:
    cdn = site.cdn_url.removeprefix("http://")
    return TheImpressionSource(client, {"base_url": site.base_url, "cdn_hosts": [cdn], **options})


async def shows_of(
    impression: TheImpressionSource, summaries: list[ShowSummary]
) -> dict[str, object]:
    """Each post's ShowIngest, or the reason it was skipped."""
    out: dict[str, object] = {}
    for summary in summaries:
        try:
            out[summary.key] = await impression.fetch_show(summary, None)
        except ShowSkipped as exc:
            out[summary.key] = str(exc)
    return out


async def test_rest_lists_every_page_and_needs_no_post_pages(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression = source(impression_site, client)
    summaries = await impression.list_shows(None, None)
    assert [s.key for s in summaries] == SLUGS
    assert summaries[0].url == f"{impression_site.base_url}/{PARIS}/"
    assert [h.query["page"] for h in impression_site.hits if h.path == REST] == ["1", "2"]
    shows = await shows_of(impression, summaries)
    assert [key for key, show in shows.items() if isinstance(show, ShowIngest)] == [
        SLUGS[0],
        SLUGS[1],
        SLUGS[2],
        SLUGS[5],
        SLUGS[6],
    ]
    assert "not street style" in str(shows[SLUGS[3]])
    # Only furniture there, and an ad on a foreign host: refused, and said so.
    assert str(shows[SLUGS[4]]).endswith(": no images (ads.partner.example (1) refused)")
    assert impression_site.paths() == [REST, REST]  # bodies came with the listing


async def test_rest_paging_stops_at_the_400_past_the_end(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression_site.routes.clear()
    serve_wp_rest(impression_site, total_pages=False)
    summaries = await source(impression_site, client).list_shows(None, 0)
    assert len(summaries) == 7
    assert [h.status for h in impression_site.hits] == [200, 200, 400]


async def test_limit_caps_posts_and_the_page_size(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    summaries = await source(impression_site, client).list_shows(None, 3)
    assert [s.key for s in summaries] == SLUGS[:3]
    assert [h.query.get("per_page") for h in impression_site.hits] == ["3"]


async def test_without_rest_the_feed_is_topped_up_by_listing_pages(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    rest_shows = await shows_of(
        source(impression_site, client),
        await source(impression_site, client).list_shows(None, None),
    )
    impression_site.route(REST, status=404, body=b'{"code":"rest_no_route"}')
    impression_site.hits.clear()
    impression = source(impression_site, client)
    summaries = await impression.list_shows(None, None)
    assert [s.key for s in summaries] == SLUGS
    assert impression_site.paths() == [REST, "/feed/", "/", "/page/2/", "/page/3/", "/page/4/"]
    impression_site.hits.clear()
    assert await shows_of(impression, summaries) == rest_shows
    # Feed posts carried their bodies; only the two older posts were fetched.
    assert impression_site.paths() == [f"/{SLUGS[5]}/", f"/{SLUGS[6]}/"]


async def test_rest_answering_html_falls_back_and_a_small_limit_needs_only_the_feed(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression_site.route(
        REST, body=b"<html>Access denied</html>", headers={"Content-Type": "text/html"}
    )
    summaries = await source(impression_site, client).list_shows(None, 2)
    assert [s.key for s in summaries] == SLUGS[:2]
    assert impression_site.paths() == [REST, "/feed/"]


async def test_listing_pages_alone_and_an_echoing_site_stops(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression_site.route(REST, status=404)
    impression_site.route("/feed/", status=404)
    impression = source(impression_site, client)
    summaries = await impression.list_shows(None, None)
    assert [s.key for s in summaries] == SLUGS
    show = await impression.fetch_show(summaries[0], None)
    assert (show.city, show.author, len(show.looks)) == ("Paris", "Mira Solenne", 8)
    impression_site.route("/page/*", file="page/3/index.html")  # every page number: the same
    echoed = await source(impression_site, client).list_shows(None, None)
    assert [s.key for s in echoed] == [*SLUGS[:3], SLUGS[6]]


async def test_original_images_and_cdn_images_are_served(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression = source(impression_site, client, original=True)
    summaries = await impression.list_shows(None, 3)
    paris = await impression.fetch_show(summaries[0], None)
    first = paris.looks[0].image.url
    assert (
        first
        == f"{impression_site.base_url}/wp-content/uploads/2030/10/{PARIS}-the-impression-001.jpg"
    )
    assert (await client.get(first)).content[:2] == b"\xff\xd8"
    coachella = await impression.fetch_show(summaries[2], None)
    cdn_url = coachella.looks[0].image.url
    assert cdn_url.startswith(impression_site.cdn_url)
    impression_site.route(httpx.URL(cdn_url).path, body=b"\xff\xd8cdn")
    assert (await client.get(cdn_url)).content == b"\xff\xd8cdn"
    print(msgspec.json.format(msgspec.json.encode(paris)).decode())


async def test_images_refused_for_their_host_are_a_warning_naming_hosts_and_counts(
    impression_site: SiteServer, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    cdn = impression_site.cdn_url.removeprefix("http://")
    default = TheImpressionSource(client, {"base_url": impression_site.base_url})
    coachella = (await default.list_shows(None, 3))[2]
    assert coachella.key == SLUGS[2]
    with (
        caplog.at_level(logging.WARNING, logger="rk.plugins.theimpression"),
        pytest.raises(ShowSkipped, match=rf"no images \({re.escape(cdn)} \(5\) refused\)"),
    ):
        await default.fetch_show(coachella, None)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        f"theimpression: {coachella.url}: 5 images refused, their hosts are not in "
        f"sources.theimpression.cdn_hosts: {cdn} (5)"
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="rk.plugins.theimpression"):
        show = await source(impression_site, client).fetch_show(coachella, None)
    assert len(show.looks) == 5
    assert caplog.records == []


async def test_post_404_and_429_are_clear_source_errors(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    impression = source(impression_site, client)
    missing = ShowSummary(
        url=f"{impression_site.base_url}/street-style-gone/", key="street-style-gone"
    )
    with pytest.raises(SourceError, match="street-style-gone/ answered HTTP 404") as err:
        await impression.fetch_show(missing, None)
    assert not isinstance(err.value, ShowSkipped | SourceUnavailable)
    slug = SLUGS[5]
    impression_site.route(f"/{slug}/", status=429, headers={"Retry-After": "30"}, times=1)
    post = ShowSummary(url=f"{impression_site.base_url}/{slug}/", key=slug)
    with pytest.raises(SourceUnavailable, match=r"HTTP 429 Too Many Requests \(Retry-After: 30\)"):
        await impression.fetch_show(post, None)
    assert len((await impression.fetch_show(post, None)).looks) == 4


async def test_crawl_through_the_polite_client_counts_skips(impression_site: SiteServer) -> None:
    impression_site.route(f"/{SLUGS[6]}/", status=503, headers={"Retry-After": "0"}, times=1)
    impression_site.route(REST, status=404)
    got: list[ShowIngest] = []

    async def sink(show: ShowIngest) -> None:
        got.append(show)

    settings = SpiderSettings(min_interval_s=0, retries=2, backoff_max_s=1)
    async with polite_client(settings) as polite:
        stats = await crawl(source(impression_site, polite), None, None, sink)
    assert (stats.listed, stats.shows, stats.skipped, stats.failed) == (7, 5, 2, 0)
    assert sorted(show.show_key for show in got) == sorted([*SLUGS[:3], *SLUGS[5:]])
    assert impression_site.paths(f"/{SLUGS[6]}/") == [f"/{SLUGS[6]}/"] * 2  # 503, then 200


async def test_a_site_without_any_route_to_posts_is_a_source_error(
    impression_site: SiteServer, client: httpx.AsyncClient
) -> None:
    challenge = b"<html><body>Checking your browser</body></html>"
    impression_site.route("/*", body=challenge, headers={"Content-Type": "text/html"})
    with pytest.raises(SourceError, match=r"no posts at .* \(no REST API, feed or listing links\)"):
        await source(impression_site, client).list_shows(None, 5)


def test_bad_options_are_config_errors(client: httpx.AsyncClient) -> None:
    with pytest.raises(ConfigError, match="original must be true or false"):
        TheImpressionSource(client, {"original": 2})
    with pytest.raises(ConfigError, match="base_url must be http"):
        TheImpressionSource(client, {"base_url": "theimpression.com"})
    with pytest.raises(ConfigError, match="cdn_hosts must be a list"):
        TheImpressionSource(client, {"cdn_hosts": 5})


def test_registered_through_the_entry_point(plugin_manager: object) -> None:
    assert get_source("theimpression", plugin_manager) is TheImpressionSource  # type: ignore[arg-type]
