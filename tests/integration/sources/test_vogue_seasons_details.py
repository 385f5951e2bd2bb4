"""VogueSource over real HTTP: season pages, season-narrowed brands, details linked to looks."""

from __future__ import annotations

import logging

import httpx
import pytest

from rk.core.api.errors import ConfigError
from rk.core.api.sources import BrandTarget, NoSuchSeason, SeasonSource, ShowSummary
from rk.plugins.vogue.source import VogueSource
from tests.support.sites import SiteServer

FW = "fall-2031-ready-to-wear"


def source(site: SiteServer, client: httpx.AsyncClient, **options: object) -> VogueSource:
    return VogueSource(client, {"base_url": site.base_url, **options})


def summary(site: SiteServer, key: str) -> ShowSummary:
    return ShowSummary(url=f"{site.base_url}/fashion-shows/{key}", key=key)


async def test_season_page_lists_every_show_with_its_brand(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    assert isinstance(vogue, SeasonSource)
    shows = await vogue.list_season(f" {FW} ")
    assert [(s.key, s.brand_name, s.brand_slug) for s in shows] == [
        (f"{FW}/maison-aurele", "Maison Aurèle", "maison-aurele"),
        (f"{FW}/paloma-quintero", "Paloma Quintero", "paloma-quintero"),
        (f"{FW}/veyra-atelier", "Veyra Atelier", "veyra-atelier"),
    ]
    assert shows[2].url == f"{vogue_site.base_url}/fashion-shows/{FW}/veyra-atelier"
    assert vogue_site.paths() == [f"/fashion-shows/{FW}"]


async def test_unknown_or_malformed_season_is_a_clear_error(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    with pytest.raises(NoSuchSeason, match="no season 'fall-2099-couture'.*HTTP 404"):
        await vogue.list_season("fall-2099-couture")
    with pytest.raises(ValueError, match="not a season slug"):
        await vogue.list_season("Fall 2031/../x")
    assert vogue_site.paths() == ["/fashion-shows/fall-2099-couture"]


async def test_a_season_task_with_a_slug_fetches_the_show_directly(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    brand = BrandTarget(uid="u9", name="Veyra Atelier", slug="veyra-atelier", season=FW)
    (listed,) = await vogue.list_shows(brand, None)
    assert listed.key == f"{FW}/veyra-atelier"
    show = await vogue.fetch_show(listed, brand)
    assert vogue_site.paths() == [
        f"/fashion-shows/{FW}/veyra-atelier",
        f"/fashion-shows/{FW}/veyra-atelier/slideshow/collection",
    ]
    assert show.title == "Veyra Atelier Fall 2031 Ready-to-Wear"
    assert [d.look for d in show.details] == [2, 2, 5, 7]


async def test_a_season_task_without_a_slug_filters_the_designer_page(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client)
    shows = await vogue.list_shows(BrandTarget(name="Maison Aurèle", season=FW), None)
    assert [s.key for s in shows] == [f"{FW}/maison-aurele"]
    other = BrandTarget(name="Halden & Co.", season=FW)
    assert await vogue.list_shows(other, None) == []  # Halden & Co. did not show that season


async def test_details_are_linked_through_the_slideshow_page(
    vogue_site: SiteServer, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    vogue = source(vogue_site, client)
    with caplog.at_level(logging.INFO, logger="rk.plugins.vogue"):
        show = await vogue.fetch_show(summary(vogue_site, f"{FW}/maison-aurele"), None)
    assert [d.look for d in show.details] == [n for n in range(1, 32, 3) for _ in (0, 1)] + [
        None,
        None,
    ]
    assert show.looks[0].model_name == "Ines Calder"
    assert all(look.model_name for look in show.looks)
    assert f"{FW}/maison-aurele: 22 of 24 details linked to looks, 60 of 60 models" in caplog.text
    assert vogue_site.paths(f"/fashion-shows/{FW}/maison-aurele/slideshow") == [
        f"/fashion-shows/{FW}/maison-aurele/slideshow/collection"
    ]


async def test_link_details_off_fetches_no_slideshow(
    vogue_site: SiteServer, client: httpx.AsyncClient
) -> None:
    vogue = source(vogue_site, client, link_details="false")
    show = await vogue.fetch_show(summary(vogue_site, f"{FW}/maison-aurele"), None)
    assert all(d.look is None for d in show.details)
    assert all(look.model_name == "" for look in show.looks)
    assert vogue_site.paths() == [f"/fashion-shows/{FW}/maison-aurele"]
    with pytest.raises(ConfigError, match="link_details must be true or false"):
        source(vogue_site, client, link_details="sometimes")


@pytest.mark.parametrize(
    ("key", "status", "level", "said"),
    [
        ("copenhagen-fall-2031/kestrel-vine", None, logging.INFO, "no slideshow page"),
        ("spring-2031-menswear/kestrel-vine", None, logging.WARNING, "not valid JSON"),
        (f"{FW}/veyra-atelier", 503, logging.WARNING, "HTTP 503"),
    ],
)
async def test_a_missing_or_unreadable_slideshow_leaves_details_unlinked(
    vogue_site: SiteServer,
    client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    key: str,
    status: int | None,
    level: int,
    said: str,
) -> None:
    if status is not None:
        vogue_site.route(f"/fashion-shows/{key}/slideshow/collection", status=status)
    with caplog.at_level(logging.INFO, logger="rk.plugins.vogue"):
        show = await source(vogue_site, client).fetch_show(summary(vogue_site, key), None)
    assert show.details
    assert all(d.look is None for d in show.details)
    record = next(r for r in caplog.records if "details stay unlinked" in r.getMessage())
    assert record.levelno == level
    assert said in record.getMessage()
