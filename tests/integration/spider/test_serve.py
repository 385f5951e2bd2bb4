"""``rk spider serve`` end to end: operator commands queue brands, a spider crawls them.

Real processes over real sockets: ``rk serve-backend`` on SQLite and on PostgreSQL, the
local Vogue-like site, ``rk spider serve --plugin vogue`` with direct media upload.
"""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import httpx

from rk.core.config import QueueSettings
from rk.server.crawl.tasks import CrawlTasks
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E
from tests.integration.spider.procs import claims, eventually, reports


async def test_queued_brands_are_crawled_ingested_and_reported(e2e: E2E) -> None:
    # The backend generates its secret on first start and prints what a spider needs.
    backend = e2e.backend(secret=None)
    printed = await backend.wait_for(r"secret_file: (\S+)")
    secret = (await asyncio.to_thread(Path(printed.group(1)).read_text, "ascii")).strip()
    kestrel = re.search(r"id=(\d+)", backend.ok("brands", "add", "Kestrel & Vine"))
    assert kestrel
    backend.ok("crawl", "add", "Kestrel & Vine", "--max-shows", "0")
    halden, _ = await e2e.queue("Halden & Co.", max_shows=1, priority=5)

    spider = e2e.spider("spider", backend, secret=secret)

    async def finished() -> list[dict] | None:
        tasks = await archive.all_tasks()
        return tasks if all(t["status"] == "done" for t in tasks) else None

    tasks = await eventually(finished, "both tasks done")
    await eventually(archive.jobs_done, "every ingest job finished")
    want = {
        int(kestrel.group(1)): await archive.expected_shows(e2e.site, "Kestrel & Vine"),
        halden: await archive.expected_shows(e2e.site, "Halden & Co.", 1),
    }
    for row in tasks:
        assert row["shows_submitted"] == len(want[row["brand_id"]])
        assert row["attempts"] == 1
        assert row["last_error"] == ""
    images = await archive.check_archived(
        e2e.site, [s for shows in want.values() for s in shows], backend.media_path
    )
    assert all(row["uploaded_by_spider"] for row in images)
    assert len(await archive.articles()) == sum(len(shows) for shows in want.values())

    # The log says who claimed what and what was reported, as the predecessor did (a line
    # is written once the backend has answered, so it may trail the database by a moment).
    for row in tasks:
        await spider.wait_for(f"task {row['id']} done: ")
    log = spider.log()
    assert sorted(task for _, task in claims(log)) == [t["id"] for t in tasks]
    assert {(task, status, shows) for _, task, status, shows in reports(log)} == {
        (t["id"], "done", t["shows_submitted"]) for t in tasks
    }
    listing = backend.ok("crawl", "list", "--status", "done")
    assert "Kestrel & Vine" in listing
    assert "Halden & Co." in listing

    spider.send(signal.SIGTERM)
    assert await spider.wait() == 0


async def test_sigint_finishes_and_reports_the_task_in_hand_then_exits_0(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    backend = e2e.backend()
    _, first = await e2e.queue("Kestrel & Vine", priority=1)
    _, second = await e2e.queue("Halden & Co.")
    e2e.site.slow_pages = 0.5  # three shows, one at a time: SIGINT lands mid-brand
    spider = e2e.spider("spider", backend, "-w", "1", "-i", "1", "-m", "1")
    await spider.wait_for(f"claimed task={first} ")

    spider.send(signal.SIGINT)
    assert await spider.wait() == 0
    e2e.site.slow_pages = 0.0
    row = await archive.task(first)
    shows = await archive.expected_shows(e2e.site, "Kestrel & Vine")
    assert row["status"] == "done"
    assert row["shows_submitted"] == len(shows)
    assert (await archive.task(second))["status"] == "queued"
    log = spider.log()
    assert "SIGINT: no new tasks; finishing the brands in hand" in log
    assert [task for _, task, _, _ in reports(log)] == [first]
    assert [task for _, task in claims(log)] == [first]


async def test_cancel_or_delete_mid_crawl_does_not_interrupt_the_spider(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    backend = e2e.backend()
    _, canceled = await e2e.queue("Kestrel & Vine")
    _, deleted = await e2e.queue("Halden & Co.")
    e2e.site.slow_pages = 0.7
    spider = e2e.spider("spider", backend, "-w", "2", "-i", "1", "-m", "1")
    await spider.wait_for(f"claimed task={canceled} ")
    await spider.wait_for(f"claimed task={deleted} ")
    tasks = await CrawlTasks.open(e2e.dsn, QueueSettings())  # what `rk crawl cancel|delete` call
    try:
        await tasks.cancel(canceled)
        await tasks.delete(deleted)
    finally:
        await tasks.close()

    await spider.wait_for(f"task {canceled} done: status=done")
    await spider.wait_for(f"task {deleted}: result refused: .*crawl task {deleted} does not exist")
    e2e.site.slow_pages = 0.0
    row = await archive.task(canceled)
    kestrel = await archive.expected_shows(e2e.site, "Kestrel & Vine")
    halden = await archive.expected_shows(e2e.site, "Halden & Co.")
    assert (row["status"], row["shows_submitted"]) == ("canceled", len(kestrel))
    assert [t["id"] for t in await archive.all_tasks()] == [canceled]
    await eventually(archive.jobs_done, "every ingest job finished")
    await archive.check_archived(e2e.site, kestrel + halden, backend.media_path)
    assert spider.alive()


async def test_a_season_queued_by_add_season_is_crawled_with_details_linked(e2e: E2E) -> None:
    season = "fall-2031-ready-to-wear"
    backend = e2e.backend(sources={"vogue": {"base_url": e2e.site.base_url}})
    queued = backend.ok("crawl", "add-season", "vogue", season)
    assert queued.splitlines()[-1].startswith(f"queued 3 tasks for {season} on vogue")
    spider = e2e.spider("spider", backend)

    async def finished() -> list[dict] | None:
        tasks = await archive.all_tasks()
        return tasks if all(t["status"] == "done" for t in tasks) else None

    tasks = await eventually(finished, "every season task done")
    await eventually(archive.jobs_done, "every ingest job finished")
    assert {t["season"] for t in tasks} == {season}
    assert sorted(t["shows_submitted"] for t in tasks) == [0, 1, 1]  # Paloma's is paywalled
    want = await archive.expected_season(e2e.site, season)
    rows = await archive.check_archived(e2e.site, want, backend.media_path)
    by_show = {show.show_key: show for show in want}
    aurele = by_show[f"{season}/maison-aurele"]
    assert [d.look for d in aurele.details][:4] == [1, 1, 4, 4]
    assert sum(row["role"] == "detail" and row["look_number"] is not None for row in rows) == 26
    assert {row["model_name"] for row in rows if row["role"] == "look"} >= {"Ines Calder"}
    assert all(row["model_name"] for row in rows if row["role"] == "look")
    assert e2e.site.paths("/fashion-shows/designer") == []  # each show fetched by its slug
    for row in tasks:
        await spider.wait_for(f"claimed task={row['id']} brand=.* season={season}")

    # Published, the public show page sorts the details under their looks.
    aurele_id = await archive.article_id(f"{season}/maison-aurele")
    await archive.publish(aurele_id)
    async with httpx.AsyncClient(base_url=backend.url, timeout=10) as http:
        page = await http.get(f"/shows/{aurele_id}", headers={"Accept": "text/html"})
        api = (await http.get(f"/api/shows/{aurele_id}")).json()
        first_detail = api["detail_groups"][0]["details"][0]["image_id"]
        look_one = api["looks"][0]["image_id"]
        detail_page = await http.get(f"/images/{first_detail}", headers={"Accept": "text/html"})
        look_page = await http.get(f"/images/{look_one}", headers={"Accept": "text/html"})
    assert f'<dt>Look</dt><dd><a href="/images/{look_one}">Look 1</a></dd>' in detail_page.text
    assert "<dt>Model</dt><dd>Ines Calder</dd>" in look_page.text
    titles = re.findall(r'<h3 class="detail-group__title">(.*?)</h3>', page.text, re.S)
    assert len(titles) == 12
    assert re.sub(r"<[^>]+>", "", titles[0]).split() == ["Look", "1", "·", "Ines", "Calder"]
    assert re.sub(r"<[^>]+>", "", titles[-1]).strip() == "Other details"
    groups = api["detail_groups"]
    assert [g["look"] for g in groups] == [*range(1, 32, 3), None]
    assert [len(g["details"]) for g in groups] == [2] * 11 + [2]
    assert groups[0]["details"][0]["alt"].endswith("detail 1 of look 1")
    assert groups[0]["look_image_id"] == api["looks"][0]["image_id"]


async def test_a_brand_without_a_designer_page_fails_with_the_reason(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    backend = e2e.backend(queues={"crawl_max_attempts": 1})
    _, task_id = await e2e.queue("Unlisted Label")  # its designer page answers 404
    spider = e2e.spider("spider", backend, "-w", "1", "-i", "1")

    async def failed() -> dict | None:
        row = await archive.task(task_id)
        return row if row["status"] == "failed" else None

    row = await eventually(failed, "the task failed")
    assert row["shows_submitted"] == 0
    assert "no designer page for 'Unlisted Label'" in row["last_error"]
    assert "/fashion-shows/designer/unlisted-label answered HTTP 404" in row["last_error"]
    spider.send(signal.SIGTERM)
    assert await spider.wait() == 0
