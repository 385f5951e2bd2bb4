"""Crawl queue, brands and ingest jobs in the console: the happy paths and roles."""

from __future__ import annotations

from rk.server.platform.db.tables import Brand, CrawlTask, IngestJob
from tests.integration.admin.console import HTML, account, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


async def test_moderator_is_refused_admin_pages(console: Backend) -> None:
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    for path in ("/admin/crawl", "/admin/brands", "/admin/ingest-jobs", "/admin/users"):
        answer = await console.client.get(path, headers=HTML)
        assert answer.status_code == 403, path
        assert "for admins" in answer.text
    ok = await console.client.get("/admin/articles", headers=HTML)
    assert ok.status_code == 200
    refused = await post_form(
        console.client, "/admin/articles", "/admin/brands/add", {"name": "Sneaky"}
    )
    assert refused.status_code == 403
    assert await Brand.count() == 0


async def test_add_brand_queue_crawl_see_task(console: Backend) -> None:
    await account("ad")
    await sign_in(console.client, "ad")
    added = await post_form(
        console.client,
        "/admin/brands",
        "/admin/brands/add",
        {"name": "Maison Aurèle", "slug_vogue": "maison-aurele"},
    )
    assert added.status_code == 303
    brand_page = added.headers["location"]
    page = await console.client.get(brand_page, headers=HTML)
    assert "Added Maison Aurèle." in page.text
    assert "Update history" in page.text
    queued = await post_form(
        console.client, brand_page, f"{brand_page}/crawl", {"source": "vogue", "max_shows": "3"}
    )
    assert queued.status_code == 303
    tasks = await CrawlTask.select(CrawlTask.max_shows, CrawlTask.source, CrawlTask.status)
    assert tasks == [{"max_shows": 3, "source": "vogue", "status": "queued"}]
    crawl = await console.client.get("/admin/crawl", headers=HTML)
    assert "Maison Aurèle" in crawl.text
    assert 'data-refresh="5"' in crawl.text
    task_id = (await CrawlTask.select(CrawlTask.id).first() or {})["id"]
    canceled = await post_form(console.client, "/admin/crawl", f"/admin/crawl/{task_id}/cancel", {})
    assert canceled.status_code == 303
    assert await CrawlTask.select(CrawlTask.status) == [{"status": "canceled"}]
    again = await post_form(console.client, "/admin/crawl", f"/admin/crawl/{task_id}/cancel", {})
    assert again.status_code == 409
    assert "cannot be canceled" in again.text
    batch = await post_form(
        console.client,
        "/admin/crawl",
        "/admin/crawl/batch",
        {"prefix": "mai", "max_shows": "2", "count": "5", "source": "vogue"},
    )
    assert batch.status_code == 303
    assert await CrawlTask.count() == 2
    search = await console.client.get("/admin/brands/search?q=auR")
    assert search.json() == [
        {"uid": (await Brand.select(Brand.uid).first() or {})["uid"], "name": "Maison Aurèle"}
    ]


async def test_jobs_list_page_and_retry(console: Backend) -> None:
    await account("ad")
    await sign_in(console.client, "ad")
    archive = Archive()
    article = await add_show(console.storage, archive, "x", brand="Nordlys", status="pending")
    await IngestJob.insert(
        IngestJob(
            kind="media_cleanup",
            status="failed",
            attempts=3,
            payload=f'{{"article_id":{article}}}',
            last_error="storage unreachable: connection refused",
            created_at=1,
            updated_at=2,
        )
    )
    job_id = (await IngestJob.select(IngestJob.id).first() or {})["id"]
    listing = await console.client.get("/admin/ingest-jobs?status=failed", headers=HTML)
    assert listing.status_code == 200
    assert "storage unreachable" in listing.text
    page = await console.client.get(f"/admin/ingest-jobs/{job_id}", headers=HTML)
    assert "Retry this job" in page.text
    assert f"/admin/articles/{article}" in page.text
    retried = await post_form(
        console.client, f"/admin/ingest-jobs/{job_id}", f"/admin/ingest-jobs/{job_id}/retry", {}
    )
    assert retried.status_code == 303
    row = await IngestJob.select(IngestJob.attempts).where(IngestJob.id == job_id).first()
    assert row is not None
    assert row["attempts"] in (0, 1)


async def test_brand_page_lists_its_jobs_as_update_history(console: Backend) -> None:
    await account("ad")
    await sign_in(console.client, "ad")
    added = await post_form(
        console.client, "/admin/brands", "/admin/brands/add", {"name": "Halden"}
    )
    brand_id = (await Brand.select(Brand.id).first() or {})["id"]
    await IngestJob.insert(
        IngestJob(
            kind="crawl",
            status="done",
            outcome="created",
            note="created, 2 images",
            attempts=1,
            brand_id=brand_id,
            payload='{"show_key":"s/halden","title":"Halden Fall 2025","looks":[{},{}]}',
            created_at=1,
            updated_at=2,
        )
    )
    job_id = (await IngestJob.select(IngestJob.id).first() or {})["id"]
    page = await console.client.get(added.headers["location"], headers=HTML)
    assert f'href="/admin/ingest-jobs/{job_id}"' in page.text
    assert "Halden Fall 2025" in page.text
    assert "2 looks" in page.text
