"""What the archive holds, read in the test process through rk's piccolo tables.

The test binds the tables to the backend's database (``rk.server.platform.db.engine.connect``)
and reads tasks, articles, images and ingest jobs; the expected shows come from the real
Vogue source plugin over HTTP against the same local site the spiders crawl.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from rk.core.api.errors import SourceError
from rk.core.api.keys import sha1_hex
from rk.core.api.sources import BrandTarget
from rk.core.api.wire import ShowIngest
from rk.plugins.vogue.source import VogueSource
from rk.server.platform.db.tables import Article, CrawlTask, Image, IngestJob
from tests.integration.spider.photos import PhotoSite


async def expected_shows(site: PhotoSite, brand: str, max_shows: int = 0) -> list[ShowIngest]:
    """The shows a crawl of ``brand`` must submit: listed newest first, those that fetch."""
    async with httpx.AsyncClient(timeout=10) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        target = BrandTarget(name=brand)
        shows = []
        for summary in await vogue.list_shows(target, max_shows or None):
            try:
                shows.append(await vogue.fetch_show(summary, target))
            except SourceError:
                continue  # the spider fails on it too: not expected in the archive
        return shows


async def expected_season(site: PhotoSite, season: str) -> list[ShowIngest]:
    """The shows a crawl of a whole season must submit, each under its listed brand."""
    async with httpx.AsyncClient(timeout=10) as http:
        vogue = VogueSource(http, {"base_url": site.base_url})
        shows = []
        for summary in await vogue.list_season(season):
            target = BrandTarget(name=summary.brand_name, slug=summary.brand_slug)
            try:
                shows.append(await vogue.fetch_show(summary, target))
            except SourceError:
                continue  # skipped (paywalled) or broken: not expected in the archive
        return shows


async def task(task_id: int) -> dict[str, Any]:
    """One crawl task row."""
    row = await CrawlTask.select().where(CrawlTask.id == task_id).first()
    assert row is not None, f"no crawl task {task_id}"
    return row


async def all_tasks() -> list[dict[str, Any]]:
    """Every crawl task row, by id."""
    return await CrawlTask.select().order_by(CrawlTask.id)


async def jobs_done() -> bool:
    """Whether every ingest job has finished (done or failed)."""
    pending = await IngestJob.count().where(IngestJob.status.is_in(["pending", "processing"]))
    return pending == 0 and await IngestJob.count() > 0


async def articles() -> list[dict[str, Any]]:
    """Every article row, by id."""
    return await Article.select().order_by(Article.id)


async def check_archived(
    site: PhotoSite, shows: list[ShowIngest], media: Any
) -> list[dict[str, Any]]:
    """Assert every show is one article with all its images stored; the image rows.

    ``media(key)`` is the path where ``file://`` storage keeps a key. Each image row must
    name the show's URL at its position, the content key of the bytes the site served,
    the look it shows (a detail's linked look, NULL when unlinked) and the look's model,
    and both the original and its thumbnail must be in storage.
    """
    rows: list[dict[str, Any]] = []
    for show in shows:
        found = await Article.select().where(
            (Article.source == show.source) & (Article.show_key == show.show_key)
        )
        assert len(found) == 1, f"{show.show_key}: {len(found)} articles"
        images = await Image.select().where(Image.article_id == found[0]["id"])
        slots = {(row["role"], row["position"]): row for row in images}
        wanted = {("look", look.number): look.image.url for look in show.looks}
        wanted |= {("detail", n): ref.url for n, ref in enumerate(show.details, start=1)}
        links = {("look", look.number): (look.number, look.model_name) for look in show.looks}
        links |= {("detail", n): (ref.look, "") for n, ref in enumerate(show.details, start=1)}
        assert set(slots) == set(wanted), f"{show.show_key}: image slots differ"
        for slot, url in wanted.items():
            row = slots[slot]
            data = site.photo(urlsplit(url).path)
            assert row["source_url"] == url
            assert (row["look_number"], row["model_name"]) == links[slot], slot
            assert row["key"] == f"runway/{sha1_hex(data)}.jpg", f"{show.show_key} {slot}"
            assert media(row["key"]).read_bytes() == data
            assert row["thumb_key"] == f"thumb/{sha1_hex(data)}.jpg"
            assert media(row["thumb_key"]).stat().st_size > 0
        rows.extend(images)
    return rows


async def article_id(show_key: str) -> int:
    """The id of the article of ``show_key``."""
    row = await Article.select(Article.id).where(Article.show_key == show_key).first()
    assert row is not None, f"no article {show_key}"
    return int(row["id"])


async def publish(article: int) -> None:
    """Publish an article, as a moderator's approval does."""
    await Article.update({Article.status: "published", Article.updated_at: int(time.time())}).where(
        Article.id == article
    )
