"""``rk spider vogue --season …``: every show of a season, printed (-d) or archived.

With ``-d`` nothing but the local site is needed; without it the spider finds or creates
each show's brand in the backend (``POST /admin/internal/brands``), uploads the photos and
submits the shows, and the archive holds each detail's look and each look's model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rk.server.brands.management import find_brand
from rk.server.platform.db.tables import Article
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E, SECRET
from tests.integration.spider.photos import PhotoSite
from tests.integration.spider.procs import eventually, write_config
from tests.integration.spider.test_oneshot import FAST, by_key, json_lines, oneshot

FW = "fall-2031-ready-to-wear"


def test_season_with_d_prints_every_show_with_details_linked(
    site: PhotoSite, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path / "config.yml", {"spider": FAST, "sources": {"vogue": {"base_url": site.base_url}}}
    )
    done = oneshot(config, "vogue", "--season", FW, "-d")
    assert done.returncode == 0, done.stderr
    got = by_key(json_lines(done.stdout))
    assert sorted(got) == [f"{FW}/maison-aurele", f"{FW}/veyra-atelier"]  # Paloma's is paywalled
    want = asyncio.run(archive.expected_season(site, FW))
    assert got == by_key(want)
    aurele, veyra = got[f"{FW}/maison-aurele"], got[f"{FW}/veyra-atelier"]
    assert [d.look for d in aurele.details] == [n for n in range(1, 32, 3) for _ in (0, 1)] + [
        None,
        None,
    ]
    assert [d.look for d in veyra.details] == [2, 2, 5, 7]
    assert all(look.model_name for look in (*aurele.looks, *veyra.looks))
    assert (aurele.title, aurele.date) == (
        "Maison Aurèle Fall 2031 Ready-to-Wear",
        "2031-03-04T16:12:00-05:00",
    )
    images = sum(len(show.images()) for show in want)
    assert done.stderr.strip().splitlines()[-1] == (
        f"printed 2 shows (1 skipped, 0 failed), {images} image URLs "
        "(nothing downloaded, uploaded or submitted)"
    )
    assert site.photo_gets() == 0
    assert site.paths("/fashion-shows/designer") == []  # the season page names every show

    one = oneshot(config, "vogue", "--name", "Maison Aurèle", "--season", FW, "-d")
    assert [show.show_key for show in json_lines(one.stdout)] == [f"{FW}/maison-aurele"]

    for args, code, message in [
        (("--season", "Fall 2031"), 2, "error: season 'Fall 2031' is not a season slug"),
        (("--season", "fall-2099-couture"), 2, "error: vogue: no season 'fall-2099-couture'"),
    ]:
        bad = oneshot(config, "vogue", *args, "-d")
        assert bad.returncode == code, bad.stderr
        assert bad.stderr.strip().splitlines()[-1].startswith(message)
        assert bad.stdout == ""


async def test_season_without_d_creates_brands_and_archives_links(e2e_sqlite: E2E) -> None:
    backend = e2e_sqlite.backend()
    config = write_config(
        e2e_sqlite.root / "oneshot.yml",
        {
            "ingest": {"enabled": True, "endpoint": backend.endpoint, "secret": SECRET},
            "spider": FAST,
            "media": {"upload": True},
            "sources": {"vogue": {"base_url": e2e_sqlite.site.base_url}},
        },
    )
    done = oneshot(config, "vogue", "--season", FW)
    assert done.returncode == 0, done.stderr
    want = await archive.expected_season(e2e_sqlite.site, FW)
    images = sum(len(show.images()) for show in want)
    assert done.stderr.strip().splitlines()[-1] == (
        f"shows 2 submitted (1 skipped, 0 failed), images {images}: {images} uploaded, "
        "0 fallen back to URL, 0 failed"
    )
    await eventually(archive.jobs_done, "every ingest job finished")
    await archive.check_archived(e2e_sqlite.site, want, backend.media_path)
    for name, slug in [
        ("Maison Aurèle", "maison-aurele"),
        ("Veyra Atelier", "veyra-atelier"),
        ("Paloma Quintero", "paloma-quintero"),  # created too: its show is paywalled
    ]:
        brand = await find_brand(name)
        assert brand is not None, name
        assert brand.slugs == {"vogue": slug}
    veyra = await find_brand("Veyra Atelier")
    assert veyra is not None
    rows = await Article.select(Article.brand_id, Article.author, Article.date).where(
        Article.show_key == f"{FW}/veyra-atelier"
    )
    assert rows == [
        {"brand_id": veyra.id, "author": "Jonas Ekdahl", "date": "2031-03-06T10:30:00+01:00"}
    ]
