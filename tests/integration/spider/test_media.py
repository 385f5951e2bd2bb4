"""Direct media upload through a serving spider: failed PUTs fall back to URLs, re-crawls
upload nothing new.

The backend's ``server.public_url`` points at a real proxy in front of its ``/media``
routes, so the test sees every PUT the spider makes and can drop chosen ones.

Re-crawl strategy, measured (``bench/spider_media.py``; ``bench/media_recrawl.py`` for S3):
the spider asks first (``upload-url`` answers ``exists`` after a storage HEAD) instead of
letting the idempotent PUT overwrite. For 80 photos of 1280x1920 a re-crawl that asks took
0.38 s; the same images through the upload path took 1.28 s, because a PUT needs the
thumbnail too (decode + encode, two more requests) and sends every byte again. The ask is
one small request the spider makes anyway; on a first crawl it only adds the HEAD.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from prometheus_client.parser import text_string_to_metric_families

from rk.core.api.keys import sha1_hex
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E
from tests.integration.spider.procs import eventually
from tests.integration.spider.proxy import serve_proxy
from tests.integration.spider.test_faults import done_task


def upload_url_calls(backend_url: str) -> tuple[float, float]:
    """How many ``upload-urls`` and ``upload-url`` requests the backend answered with 200."""
    text = httpx.get(f"{backend_url}/metrics").text
    counts = {"/admin/internal/upload-urls": 0.0, "/admin/internal/upload-url": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            route = sample.labels.get("route", "")
            if sample.name.endswith("_count") and route in counts:
                counts[route] += sample.value if sample.labels.get("status") == "200" else 0
    return counts["/admin/internal/upload-urls"], counts["/admin/internal/upload-url"]


async def test_failed_puts_fall_back_to_urls_and_a_recrawl_uploads_nothing(
    e2e_sqlite: E2E,
) -> None:
    e2e = e2e_sqlite
    with serve_proxy(0) as proxy:
        backend = e2e.backend(server={"public_url": proxy.url})
        proxy.target = backend.url
        shows = await archive.expected_shows(e2e.site, "Halden & Co.")
        urls = [ref.url for show in shows for ref in show.images()]
        dropped = {
            f"runway/{sha1_hex(e2e.site.photo(urlsplit(url).path))}.jpg" for url in urls[::3]
        }
        proxy.drop_keys = dropped
        _, task_id = await e2e.queue("Halden & Co.")
        spider = e2e.spider("spider", backend)

        row = await eventually(lambda: done_task(task_id), "the crawl done")
        assert row["shows_submitted"] == len(shows)
        await eventually(archive.jobs_done, "every ingest job finished")
        rows = await archive.check_archived(e2e.site, shows, backend.media_path)
        assert {r["key"] for r in rows if not r["uploaded_by_spider"]} == dropped
        assert set(proxy.dropped) == dropped
        summary = f"{len(urls) - len(dropped)} uploaded, {len(dropped)} fallen back"
        await spider.wait_for(f"task {task_id} done: .*{summary}")
        assert spider.log().count("reported by URL only") == len(dropped)
        # One request for a show's originals and one for its new thumbnails, none per image.
        assert upload_url_calls(backend.url) == (2 * len(shows), 0)

        puts = len(proxy.puts)
        stored = sorted(p for p in (backend.data_dir / "media").rglob("*") if p.is_file())
        _, again = await e2e.queue("Halden & Co.")
        row = await eventually(lambda: done_task(again), "the re-crawl done")
        assert row["shows_submitted"] == len(shows)
        await eventually(archive.jobs_done, "every ingest job finished")
        assert len(proxy.puts) == puts
        assert upload_url_calls(backend.url) == (3 * len(shows), 0)  # re-crawl: one per show
        assert sorted(p for p in (backend.data_dir / "media").rglob("*") if p.is_file()) == stored
        assert len(await archive.articles()) == len(shows)
        await archive.check_archived(e2e.site, shows, backend.media_path)
