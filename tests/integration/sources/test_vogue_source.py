"""VogueSource against the synthetic Vogue Runway site over real HTTP on 127.0.0.1."""

from __future__ import annotations

import logging

import httpx
import msgspec
import pytest

from rk.core.api.errors import ConfigError, ShowSkipped, SourceError, SourceUnavailable
from rk.core.api.lookups import get_source
from rk.core.api.sources import BrandTarget, ShowSummary
from rk.core.api.wire import ShowIngest
from rk.core.config import SpiderSettings
from rk.core.runtime.crawler import crawl
from rk.core.runtime.http import polite_client
from rk.plugins.vogue.source import VogueSource
from tests.support.net import free_port
from tests.support.sites import SiteServer


def source(site: SiteServer, client: httpx.AsyncClient, **options: object) -> VogueSource:
    return VogueSource(client, {"base_url": site.base_url, **options})


def summary(site: SiteServer, key: str, title: str = "") -> ShowSummary:
    return ShowSummary(url=f"{site.base_url}/fashion-shows/{key}", title=title, key=key)


async def test_brand_found_through_the_a_to_z_link_url(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    shows = await source(vogue_site, client).list_shows(BrandTarget(name="Halden & Co."), None)
    # The A–Z link says halden-company; slugifying the name would have said halden-co.
    assert [s.key for s in shows] == [
        "resort-2031/halden-company",
        "spring-2031-ready-to-wear/halden-company",
    ]
    assert shows[0].url == f"{vogue_site.base_url}/fashion-shows/resort-2031/halden-company"
    assert "/fashion-shows/designer/halden-co" not in vogue_site.paths()


async def test_brand_without_a_link_url_is_slugified_from_the_a_to_z_name(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    shows = await source(vogue_site, client).list_shows(BrandTarget(name="kestrel & vine"), 2)
    assert [s.title for s in shows] == ["Copenhagen Fall 2031", "Spring 2031 Menswear"]
    assert "/fashion-shows/designer/kestrel-vine" in vogue_site.paths()


async def test_explicit_slug_wins_and_skips_the_index(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    brand = BrandTarget(name="Whatever Name", slug="maison-aurele")
    shows = await source(vogue_site, client).list_shows(brand, 0)
    assert len(shows) == 3
    assert vogue_site.paths() == ["/fashion-shows/designer/maison-aurele"]


async def test_designer_index_is_fetched_once_per_source(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    for name in ("Maison Aurèle", "MAISON AURELE", "Paloma Quintero", "Odalys North"):
        await vogue.list_shows(BrandTarget(name=name), None)
    assert vogue_site.paths().count("/fashion-shows/designers") == 1


async def test_designer_without_shows_has_none_and_one_without_a_page_is_an_error(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    assert await vogue.list_shows(BrandTarget(name="Odalys North"), None) == []
    with pytest.raises(SourceError, match=r"no designer page for 'Zéphyrine Loom': .*HTTP 404"):
        await vogue.list_shows(BrandTarget(name="Zéphyrine Loom"), None)
    with pytest.raises(SourceError) as err:
        await vogue.list_shows(BrandTarget(name="Unlisted Label"), None)
    assert str(err.value) == (
        f"vogue: no designer page for 'Unlisted Label': {vogue_site.base_url}"
        "/fashion-shows/designer/unlisted-label answered HTTP 404 (set the brand's vogue slug"
        " if Vogue spells it otherwise)"
    )
    assert "/fashion-shows/designer/unlisted-label" in vogue_site.paths()
    vogue_site.route("/fashion-shows/designer/odalys-north", status=500)
    with pytest.raises(SourceUnavailable, match="odalys-north answered HTTP 500"):
        await vogue.list_shows(BrandTarget(name="Odalys North"), None)


async def test_unavailable_index_falls_back_to_slugs(
    vogue_site: SiteServer, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    vogue_site.route("/fashion-shows/designers", status=503)
    with caplog.at_level(logging.WARNING):
        shows = await source(vogue_site, client).list_shows(BrandTarget(name="Maison Aurèle"), 1)
    assert [s.key for s in shows] == ["fall-2031-ready-to-wear/maison-aurele"]
    assert "designer index unavailable" in caplog.text


async def test_fetch_show_end_to_end_and_images_are_served(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    brand = BrandTarget(uid="b1", name="Maison Aurèle")
    shows = await vogue.list_shows(brand, 1)
    show = await vogue.fetch_show(shows[0], brand)
    wire = msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest)  # wire limits hold
    assert wire.source == "vogue"
    assert wire.brand is not None
    assert (wire.brand.uid, wire.brand.name) == ("b1", "Maison Aurèle")
    assert wire.show_key == "fall-2031-ready-to-wear/maison-aurele"
    assert (len(wire.looks), len(wire.details)) == (60, 24)
    assert wire.url == shows[0].url
    print(msgspec.json.format(msgspec.json.encode(wire)).decode()[:1500])
    for image in (wire.looks[0].image, wire.looks[59].image, wire.details[0]):
        assert image.url.startswith(vogue_site.base_url)
        response = await client.get(image.url)
        assert response.status_code == 200
        assert response.content[:2] == b"\xff\xd8"


async def test_original_option_rewrites_to_pass(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    show = await source(vogue_site, client, original="true").fetch_show(
        summary(vogue_site, "copenhagen-fall-2031/kestrel-vine", "Copenhagen Fall 2031"), None
    )
    assert show.city == "Copenhagen"
    assert show.brand is None
    assert all("/master/pass/" in image.url for image in show.images())


async def test_paywalled_show_is_skipped(vogue_site: SiteServer, client: httpx.AsyncClient) -> None:
    show = summary(vogue_site, "fall-2031-ready-to-wear/paloma-quintero")
    with pytest.raises(ShowSkipped, match="subscriber-only"):
        await source(vogue_site, client).fetch_show(show, None)


async def test_missing_images_are_logged_by_look_and_counted(
    vogue_site: SiteServer, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    vogue = source(vogue_site, client)
    with caplog.at_level(logging.WARNING, logger="rk.plugins.vogue.source"):
        show = await vogue.fetch_show(
            summary(vogue_site, "spring-2031-ready-to-wear/paloma-quintero"), None
        )
    assert len(show.looks) == 7
    assert vogue.skipped_images == 3
    for number in (3, 5, 6):
        assert (
            f"spring-2031-ready-to-wear/paloma-quintero: look {number} has no image" in caplog.text
        )


async def test_a_show_that_404s_is_a_clear_source_error(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    show = summary(vogue_site, "pre-fall-2031/maison-aurele")
    with pytest.raises(SourceError, match=r"pre-fall-2031/maison-aurele answered HTTP 404") as err:
        await source(vogue_site, client).fetch_show(show, None)
    assert not isinstance(err.value, ShowSkipped | SourceUnavailable)


async def test_429_surfaces_with_retry_after_on_a_plain_client_and_is_not_sticky(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    key = "spring-2031-menswear/kestrel-vine"
    vogue_site.route(f"/fashion-shows/{key}", status=429, headers={"Retry-After": "7"}, times=1)
    vogue = source(vogue_site, client)
    with pytest.raises(SourceUnavailable, match=r"HTTP 429 Too Many Requests \(Retry-After: 7\)"):
        await vogue.fetch_show(summary(vogue_site, key), None)
    assert len((await vogue.fetch_show(summary(vogue_site, key), None)).looks) == 6


async def test_429_is_retried_by_the_shared_polite_client(vogue_site: SiteServer) -> None:
    key = "spring-2031-menswear/kestrel-vine"
    vogue_site.route(f"/fashion-shows/{key}", status=429, headers={"Retry-After": "1"}, times=1)
    settings = SpiderSettings(min_interval_s=0, retries=2, backoff_max_s=2)
    async with polite_client(settings) as polite:
        show = await source(vogue_site, polite).fetch_show(summary(vogue_site, key), None)
    assert len(show.looks) == 6
    assert [p for p in vogue_site.paths() if p == f"/fashion-shows/{key}"] == [
        f"/fashion-shows/{key}"
    ] * 2


async def test_crawl_of_brands_counts_shows_skips_and_failures(vogue_site: SiteServer) -> None:
    settings = SpiderSettings(min_interval_s=0, retries=0)
    got: list[ShowIngest] = []

    async def sink(show: ShowIngest) -> None:
        got.append(show)

    async with polite_client(settings) as polite:
        vogue = source(vogue_site, polite)
        aurele = await crawl(vogue, BrandTarget(uid="u1", name="Maison Aurèle"), None, sink)
        paloma = await crawl(vogue, BrandTarget(uid="u2", name="Paloma Quintero"), None, sink)
    assert (aurele.listed, aurele.shows, aurele.skipped, aurele.failed) == (3, 2, 0, 1)
    assert "404" in aurele.errors[0]
    assert (paloma.listed, paloma.shows, paloma.skipped, paloma.failed) == (3, 2, 1, 0)
    assert sorted(s.show_key for s in got) == [
        "fall-2031-ready-to-wear/maison-aurele",
        "spring-2031-ready-to-wear/maison-aurele",
        "spring-2031-ready-to-wear/paloma-quintero",
        "tokyo-spring-2031/paloma-quintero",
    ]


async def test_bad_options_and_missing_brand_are_one_line_errors(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    with pytest.raises(ConfigError, match="original must be true or false"):
        source(vogue_site, client, original="maybe")
    with pytest.raises(ConfigError, match="base_url must be an http"):
        VogueSource(client, {"base_url": "ftp://x"})
    with pytest.raises(SourceError, match="brand is required"):
        await source(vogue_site, client).list_shows(None, None)


async def test_unreachable_site_is_a_source_error(client: httpx.AsyncClient) -> None:
    base = f"http://127.0.0.1:{free_port()}"
    vogue = VogueSource(client, {"base_url": base})
    with pytest.raises(SourceUnavailable, match="failed: ConnectError"):
        await vogue.fetch_show(ShowSummary(url=f"{base}/fashion-shows/a/b"), None)


def test_registered_through_the_entry_point(plugin_manager: object) -> None:
    assert get_source("vogue", plugin_manager) is VogueSource  # type: ignore[arg-type]
