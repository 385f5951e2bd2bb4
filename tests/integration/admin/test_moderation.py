"""Moderation through the console: approve, reject, delete, bulk; audit rows and the hook."""

from __future__ import annotations

from typing import Any

from rk.core import hookimpl
from rk.server.platform.db.tables import Article, ImageNeighbor, IngestJob, ModerationAudit
from tests.integration.admin.console import HTML, account, csrf_of, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


class Recorder:
    """Records ``rk_article_status_changed`` events."""

    def __init__(self) -> None:
        self.events: list[tuple[int, str, str]] = []

    @hookimpl
    def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
        self.events.append((article_id, old, new))


async def status_of(article_id: int) -> tuple[str, int]:
    row = (
        await Article.select(Article.status, Article.deleted_at)
        .where(Article.id == article_id)
        .first()
    )
    assert row is not None
    return str(row["status"]), int(row["deleted_at"])


async def test_review_approve_reject_delete(console: Backend, register_plugin: Any) -> None:
    recorder = Recorder()
    register_plugin(recorder, "recorder")
    archive = Archive()
    first = await add_show(console.storage, archive, "one", brand="Nordlys", status="pending")
    second = await add_show(console.storage, archive, "two", brand="Nordlys", status="pending")
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get("/admin/articles?tab=pending", headers=HTML)
    assert page.status_code == 200
    assert f'href="/admin/articles/{first}"' in page.text
    review = await console.client.get(f"/admin/articles/{second}", headers=HTML)
    assert review.status_code == 200
    assert "Approve" in review.text
    approved = await post_form(
        console.client,
        f"/admin/articles/{second}",
        f"/admin/articles/{second}/publish",
        {"expected": "pending", "go": "next"},
    )
    assert approved.status_code == 303
    assert approved.headers["location"] == f"/admin/articles/{first}"
    assert await status_of(second) == ("published", 0)
    stale = await post_form(
        console.client,
        f"/admin/articles/{second}",
        f"/admin/articles/{second}/reject",
        {"expected": "pending", "reason": "images"},
    )
    assert stale.status_code == 409
    assert await status_of(second) == ("published", 0)
    assert "is published now" in stale.text
    deleted = await post_form(
        console.client,
        f"/admin/articles/{first}",
        f"/admin/articles/{first}/delete",
        {"expected": "pending"},
    )
    assert deleted.status_code == 303
    status, deleted_at = await status_of(first)
    assert status == "pending"
    assert deleted_at > 0
    jobs = await IngestJob.select(IngestJob.kind, IngestJob.payload)
    assert {"kind": "media_cleanup", "payload": f'{{"article_id":{first}}}'} in jobs
    audit = await ModerationAudit.select(
        ModerationAudit.article_id,
        ModerationAudit.actor,
        ModerationAudit.old_status,
        ModerationAudit.new_status,
        ModerationAudit.via,
    ).order_by(ModerationAudit.id)
    assert audit == [
        {
            "article_id": second,
            "actor": "mo",
            "old_status": "pending",
            "new_status": "published",
            "via": "web",
        },
        {
            "article_id": first,
            "actor": "mo",
            "old_status": "pending",
            "new_status": "deleted",
            "via": "web",
        },
    ]
    assert recorder.events == [(second, "pending", "published"), (first, "pending", "deleted")]
    history = await console.client.get(f"/admin/articles/{second}", headers=HTML)
    assert "mo</strong> (web)" in history.text


async def test_bulk_reject_leaves_pending_tab(console: Backend) -> None:
    archive = Archive()
    ids = [
        await add_show(console.storage, archive, f"s{n}", brand="Acne", status="pending")
        for n in range(3)
    ]
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    back = "/admin/articles?tab=pending"
    fields = {"action": "reject", "id": [str(ids[0]), str(ids[2])], "tab": "pending"}
    asked = await post_form(console.client, back, "/admin/articles/bulk", fields)
    assert asked.status_code == 200
    assert "Reject 2 articles?" in asked.text
    answer = await console.client.post(
        "/admin/articles/bulk",
        data={**fields, "confirm": "yes", "reason": "duplicate", "_csrf_token": csrf_of(asked)},
        headers=HTML,
    )
    assert answer.status_code == 303
    page = await console.client.get(answer.headers["location"], headers=HTML)
    assert "Rejected 2 articles" in page.text
    assert f'href="/admin/articles/{ids[1]}"' in page.text
    assert f'href="/admin/articles/{ids[0]}"' not in page.text
    rejected = await console.client.get("/admin/articles?tab=rejected", headers=HTML)
    assert f'href="/admin/articles/{ids[0]}"' in rejected.text
    assert await ModerationAudit.count() == 2


async def test_possible_duplicates_are_listed(console: Backend) -> None:
    archive = Archive()
    original = await add_show(console.storage, archive, "orig", brand="Acne", looks=3)
    copy = await add_show(console.storage, archive, "copy", brand="Acne", status="pending", looks=3)
    other = await add_show(console.storage, archive, "other", brand="Acne", status="pending")
    pairs = list(zip(archive.images["copy"], archive.images["orig"], strict=True))
    for rank, (mine, theirs) in enumerate(pairs[:2], start=1):
        await ImageNeighbor.insert(
            ImageNeighbor(image_id=mine, model="m", neighbor_id=theirs, rank=rank, score=0.99)
        )
    far = archive.images["other"][0]
    await ImageNeighbor.insert(
        ImageNeighbor(
            image_id=archive.images["copy"][2], model="m", neighbor_id=far, rank=1, score=0.5
        )
    )
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get(f"/admin/articles/{copy}", headers=HTML)
    assert "1 possible duplicate ·" in page.text
    compare = await console.client.get(f"/admin/articles/{copy}/compare", headers=HTML)
    assert "Possible duplicates" in compare.text
    assert f'href="/admin/articles/{original}"' in compare.text
    assert "2 matching images" in compare.text
    assert f'href="/admin/articles/{other}"' not in compare.text
    alone = await console.client.get(f"/admin/articles/{other}", headers=HTML)
    assert "possible duplicate" not in alone.text.lower()


async def test_review_page_links_the_next_pending_and_shows_history(console: Backend) -> None:
    archive = Archive()
    older = await add_show(console.storage, archive, "older", brand="Acne", status="pending")
    await add_show(console.storage, archive, "live", brand="Acne")
    newer = await add_show(console.storage, archive, "newer", brand="Acne", status="pending")
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get(f"/admin/articles/{newer}", headers=HTML)
    assert f'<a class="btn" href="/admin/articles/{older}">Next pending' in page.text
    assert "No decision yet" in page.text
    last = await console.client.get(f"/admin/articles/{older}", headers=HTML)
    assert f'<a class="btn" href="/admin/articles/{newer}">Next pending' in last.text
    await post_form(
        console.client,
        f"/admin/articles/{newer}",
        f"/admin/articles/{newer}/reject",
        {"expected": "pending", "reason": "not-fashion"},
    )
    decided = await console.client.get(f"/admin/articles/{newer}", headers=HTML)
    assert '<ul class="audit-list">' in decided.text
    assert "<strong>mo</strong> (web)" in decided.text
    assert "No decision yet" not in decided.text
