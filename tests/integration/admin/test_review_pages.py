"""What the review flow's pages say (issue 29): dates and counts as people write them,
duplicates on one line with a compare page, crawl tasks that found nothing, the article a
job made, the dashboard's main action. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

from rk.server.console.dashboard import CACHE as DASHBOARD
from rk.server.moderation import TAB_COUNTS
from rk.server.platform.db.tables import Article, Brand, CrawlTask, ImageNeighbor, IngestJob
from tests.integration.admin.console import HTML, account, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


async def test_dates_and_counts_read_as_people_write_them(console: Backend) -> None:
    archive = Archive()
    one = await add_show(
        console.storage,
        archive,
        "one",
        brand="Acne",
        status="pending",
        date="2032-02-14T12:00:00-05:00",
        looks=1,
        details=1,
    )
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get(f"/admin/articles/{one}", headers=HTML)
    assert "14 February 2032" in page.text
    assert "2032-02-14T12:00:00-05:00" not in page.text
    assert "1 look ·" in page.text
    assert "1 detail" in page.text
    assert "1 details" not in page.text
    assert "1 looks" not in page.text


async def test_duplicates_fold_into_one_line_that_opens_a_compare(console: Backend) -> None:
    archive = Archive()
    original = await add_show(console.storage, archive, "orig", brand="Acne", looks=3)
    copy = await add_show(console.storage, archive, "copy", brand="Acne", status="pending", looks=3)
    others = [
        await add_show(console.storage, archive, f"o{n}", brand="Acne", status="pending", seed=n)
        for n in range(1, 4)
    ]
    pairs = list(zip(archive.images["copy"], archive.images["orig"], strict=True))
    for rank, (mine, theirs) in enumerate(pairs, start=1):
        await ImageNeighbor.insert(
            ImageNeighbor(image_id=mine, model="m", neighbor_id=theirs, rank=rank, score=0.99)
        )
    for n in range(1, len(others) + 1):
        await ImageNeighbor.insert(
            ImageNeighbor(
                image_id=archive.images["copy"][0],
                model="m",
                neighbor_id=archive.images[f"o{n}"][0],
                rank=10 + n,
                score=0.98,
            )
        )
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get(f"/admin/articles/{copy}", headers=HTML)
    assert f'<a href="/admin/articles/{copy}/compare">4 possible duplicates' in page.text
    assert "dup-list" not in page.text
    assert page.text.index("possible duplicates") < page.text.index('class="grid review-grid"')
    compare = await console.client.get(f"/admin/articles/{copy}/compare", headers=HTML)
    assert compare.status_code == 200
    assert "Possible duplicates of Acne" in compare.text
    assert "3 matching images" in compare.text
    assert f'href="/admin/articles/{original}"' in compare.text
    assert compare.text.count('class="compare__side"') == 2
    assert f'href="/admin/articles/{copy}/compare?with={others[0]}"' in compare.text
    chosen = await console.client.get(
        f"/admin/articles/{copy}/compare?with={others[1]}", headers=HTML
    )
    assert "1 matching image ·" in chosen.text
    rejected = await post_form(
        console.client,
        f"/admin/articles/{copy}/compare",
        f"/admin/articles/{copy}/reject",
        {"expected": "pending", "reason": "duplicate", "note": f"of #{original}", "go": "next"},
    )
    assert rejected.status_code == 303
    row = await Article.select(Article.status).where(Article.id == copy).first()
    assert row == {"status": "rejected"}
    alone = await console.client.get(f"/admin/articles/{original}", headers=HTML)
    assert "possible duplicate" not in alone.text.lower()
    nothing = await console.client.get(f"/admin/articles/{original}/compare", headers=HTML)
    assert "No possible duplicates" in nothing.text


async def test_a_crawl_that_found_nothing_is_a_warning_with_its_reason(console: Backend) -> None:
    await account("ad")
    await sign_in(console.client, "ad")
    added = await post_form(
        console.client, "/admin/brands", "/admin/brands/add", {"name": "Halden"}
    )
    page = added.headers["location"]
    queued = await post_form(
        console.client, page, f"{page}/crawl", {"source": "vogue", "max_shows": "1"}
    )
    said = await console.client.get(queued.headers["location"], headers=HTML)
    assert "for the newest 1 show." in said.text
    brand_id = (await Brand.select(Brand.id).first() or {})["id"]
    for sent, error in [(0, ""), (2, "https://example.invalid/s/1: HTTPError: 503"), (3, "")]:
        await CrawlTask.insert(
            CrawlTask(
                brand_id=brand_id,
                status="done",
                source="vogue",
                max_shows=3,
                attempts=1,
                shows_submitted=sent,
                last_error=error,
            )
        )
    page = await console.client.get("/admin/crawl", headers=HTML)
    assert '<span class="badge badge--warning">no shows</span>' in page.text
    assert "The source listed no show for this brand" in page.text
    assert '<span class="badge badge--warning">done, with errors</span>' in page.text
    assert "HTTPError: 503" in page.text
    assert page.text.count('<td class="status-cell"><span class="badge badge--done">') == 1


async def test_a_job_and_the_brand_history_link_the_article_they_made(console: Backend) -> None:
    archive = Archive()
    article = await add_show(console.storage, archive, "halden", brand="Halden", status="pending")
    brand = await Brand.select(Brand.id, Brand.uid).first()
    assert brand is not None
    for key in ("test/halden", "test/never-written"):
        await IngestJob.insert(
            IngestJob(
                kind="crawl",
                status="done",
                outcome="created",
                brand_id=brand["id"],
                payload=f'{{"source":"vogue","show_key":"{key}","title":"{key}","looks":[{{}}]}}',
                created_at=1,
                updated_at=2,
            )
        )
    made, unmade = [
        row["id"] for row in await IngestJob.select(IngestJob.id).order_by(IngestJob.id)
    ]
    await account("ad")
    await sign_in(console.client, "ad")
    job = await console.client.get(f"/admin/ingest-jobs/{made}", headers=HTML)
    assert f'<a href="/admin/articles/{article}">Article #{article}</a>' in job.text
    assert "1 look<" in job.text
    other = await console.client.get(f"/admin/ingest-jobs/{unmade}", headers=HTML)
    assert "none yet" in other.text
    history = await console.client.get(f"/admin/brands/{brand['uid']}", headers=HTML)
    assert f'<a href="/admin/articles/{article}">#{article}</a>' in history.text
    listing = await console.client.get("/admin/ingest-jobs", headers=HTML)
    assert f'<a href="/admin/articles/{article}">article #{article}</a>' in listing.text


async def test_the_dashboard_offers_review_as_its_main_action(console: Backend) -> None:
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    forget_counts()
    empty = await console.client.get("/admin", headers=HTML)
    assert "Nothing waits for review" in empty.text
    assert "/admin/articles/next" not in empty.text
    archive = Archive()
    for name in ("a", "b"):
        await add_show(console.storage, archive, name, brand="Acne", status="pending")
    await add_show(console.storage, archive, "c", brand="Acne")
    forget_counts()
    page = await console.client.get("/admin", headers=HTML)
    assert (
        '<a class="btn btn--primary btn--large" href="/admin/articles/next">Review 2 pending'
        in page.text
    )
    assert "<strong>2 articles</strong> wait for a decision" in page.text


def forget_counts() -> None:
    """Drop the dashboard's few-second caches: rows written here bypass the services."""
    DASHBOARD.clear()
    TAB_COUNTS.clear()
