"""One-shot crawls (``rk spider <source> …``): JSON Lines on stdout with ``-d``, no task queue.

With ``--name`` or ``-n`` and ``-d`` they need no backend and no ingest settings (the
config names only the local site); ``-b <id>`` looks the brand up over the signed API.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import httpx
import msgspec

from rk.core.api.errors import ShowSkipped
from rk.core.api.wire import BrandRef, ShowIngest
from rk.plugins.theimpression.source import TheImpressionSource
from rk.server.brands.lookup import brand_info
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E, SECRET
from tests.integration.spider.photos import SITES, PhotoSite
from tests.integration.spider.procs import clean_env, eventually, write_config
from tests.support.cli import RK
from tests.support.net import free_port
from tests.support.sites import TINY_JPEG, serve_site

FAST = {"min_interval_s": 0, "retries": 0}


def oneshot(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RK, "spider", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(),
        check=False,
    )


def json_lines(stdout: str) -> list[ShowIngest]:
    return [msgspec.json.decode(line, type=ShowIngest) for line in stdout.splitlines()]


def by_key(shows: list[ShowIngest]) -> dict[str, ShowIngest]:
    return {show.show_key: show for show in shows}


def test_vogue_by_name_prints_json_lines_without_a_backend(site: PhotoSite, tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "config.yml", {"spider": FAST, "sources": {"vogue": {"base_url": site.base_url}}}
    )
    done = oneshot(config, "vogue", "--name", "Kestrel & Vine", "-d")
    assert done.returncode == 0, done.stderr
    want = asyncio.run(archive.expected_shows(site, "Kestrel & Vine"))
    assert by_key(json_lines(done.stdout)) == by_key(want)
    images = sum(len(show.images()) for show in want)
    assert done.stderr.strip().splitlines()[-1] == (
        f"printed {len(want)} shows (0 skipped, 0 failed), {images} image URLs "
        "(nothing downloaded, uploaded or submitted)"
    )
    assert site.photo_gets() == 0  # -d reports URLs: nothing downloaded, nothing uploaded

    newest = oneshot(config, "vogue", "--name", "Kestrel & Vine", "-s", "1", "-d")
    assert [show.show_key for show in json_lines(newest.stdout)] == [want[0].show_key]


async def test_vogue_by_backend_brand_id_uses_the_signed_api(e2e_sqlite: E2E) -> None:
    backend = e2e_sqlite.backend()
    brand_id, _ = await e2e_sqlite.queue("Halden & Co.")
    config = write_config(
        e2e_sqlite.root / "oneshot.yml",
        {
            "ingest": {"enabled": True, "endpoint": backend.endpoint, "secret": SECRET},
            "spider": FAST,
            "sources": {"vogue": {"base_url": e2e_sqlite.site.base_url}},
        },
    )
    done = oneshot(config, "vogue", "-b", str(brand_id), "-d")
    assert done.returncode == 0, done.stderr
    shows = json_lines(done.stdout)
    want = await archive.expected_shows(e2e_sqlite.site, "Halden & Co.")
    assert sorted(s.show_key for s in shows) == sorted(s.show_key for s in want)
    brand = await brand_info(str(brand_id))
    assert brand is not None
    assert {show.brand for show in shows} == {BrandRef(uid=brand.uid, name="Halden & Co.")}
    assert await archive.articles() == []  # -d reports nothing

    missing = oneshot(config, "vogue", "-b", "987", "-d")
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "no brand '987'" in missing.stderr

    # Without -d the same command uploads the photos and submits the shows.
    config.write_text(config.read_text() + "media:\n  upload: true\n")
    done = oneshot(config, "vogue", "-b", str(brand_id))
    assert done.returncode == 0, done.stderr
    images = sum(len(show.images()) for show in want)
    assert done.stderr.strip().splitlines()[-1] == (
        f"shows {len(want)} submitted (0 skipped, 0 failed), images {images}: "
        f"{images} uploaded, 0 fallen back to URL, 0 failed"
    )
    await eventually(archive.jobs_done, "every ingest job finished")
    rows = await archive.check_archived(e2e_sqlite.site, want, backend.media_path)
    assert all(row["uploaded_by_spider"] for row in rows)


def test_theimpression_newest_posts_as_json_lines(tmp_path: Path) -> None:
    with serve_site(SITES / "theimpression") as site:
        site.route("/wp-content/uploads/*", body=TINY_JPEG, headers={"Content-Type": "image/jpeg"})
        options = {"base_url": site.base_url, "cdn_hosts": ["localhost"]}
        config = write_config(
            tmp_path / "config.yml", {"spider": FAST, "sources": {"theimpression": options}}
        )
        done = oneshot(config, "theimpression", "-n", "3", "-d")
        assert done.returncode == 0, done.stderr

        async def expected() -> list[ShowIngest]:
            async with httpx.AsyncClient(timeout=10) as http:
                source = TheImpressionSource(http, options)
                shows = []
                for summary in await source.list_shows(None, 3):
                    try:
                        shows.append(await source.fetch_show(summary, None))
                    except ShowSkipped:
                        continue
                return shows

        want = asyncio.run(expected())
    got = json_lines(done.stdout)
    assert want
    assert by_key(got) == by_key(want)
    assert all(show.source == "theimpression" and show.brand is None for show in got)


def test_an_image_host_whose_robots_txt_answers_503_stops_the_crawl_with_one_line(
    tmp_path: Path,
) -> None:
    """The CDN's robots.txt cannot be read: its images are not dropped as refused (the show
    printed without them); the one-shot crawl stops and says why and when to try again."""
    with serve_site(SITES / "theimpression") as site:
        site.route("/wp-content/uploads/*", body=TINY_JPEG, headers={"Content-Type": "image/jpeg"})
        site.route("/robots.txt", status=503, body=b"down", times=1)  # the CDN's, read second
        site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", times=1)  # the site's
        cdn = site.cdn_url
        options = {"base_url": site.base_url, "cdn_hosts": [cdn.removeprefix("http://")]}
        config = write_config(
            tmp_path / "config.yml", {"spider": FAST, "sources": {"theimpression": options}}
        )
        done = oneshot(config, "theimpression", "-n", "3", "-d")
        robots_reads = site.paths("/robots.txt")
    assert done.returncode == 1, done.stderr
    assert "street-style-coachella-2031" not in done.stdout
    assert robots_reads == ["/robots.txt"] * 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: refused by robots.txt: {cdn}/robots.txt answered HTTP 503, so nothing is "
        "fetched from that host until it answers; try again in 60 s"
    )


def test_bad_oneshot_input_exits_2_with_one_line(site: PhotoSite, tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "config.yml", {"spider": FAST, "sources": {"vogue": {"base_url": site.base_url}}}
    )
    for args, message in [
        (("vogue", "-d"), "say which brand"),
        (("vogue", "--name", "Kestrel & Vine"), "ingest.enabled is false"),
        (("vogue", "-b", "3", "-d"), "ingest.enabled is false"),
    ]:
        done = oneshot(config, *args)
        assert done.returncode == 2, args
        assert done.stderr.strip().splitlines() == [
            line for line in done.stderr.splitlines() if line.startswith("error:")
        ]
        assert message in done.stderr, args


def test_an_unreachable_site_names_its_host_and_the_setting(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    base = f"http://127.0.0.1:{port}"
    config = write_config(
        tmp_path / "config.yml", {"spider": FAST, "sources": {"vogue": {"base_url": base}}}
    )
    done = oneshot(config, "vogue", "--name", "Kestrel & Vine", "--slug", "kestrel-vine", "-d")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: vogue: GET ")
    assert last.endswith(
        f"(cannot connect to 127.0.0.1:{port}: check sources.vogue.base_url, that it is up,"
        " and the network)"
    )
