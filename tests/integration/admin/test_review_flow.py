"""The review flow without dead ends (issue 29): the next pending article, reasons, undo, batches.

Every decision here goes through the console's forms on a running backend, on SQLite and on
PostgreSQL; what changed is read back from the tables.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from rk.core import hookimpl
from rk.server.platform.db.tables import Article, ModerationAudit
from tests.integration.admin.console import HTML, account, csrf_of, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend

UNDO = re.compile(r'name="audit" value="(\d+)"')


class Recorder:
    """Records the status and media events a decision fires."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, str]] = []

    @hookimpl
    def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
        self.events.append(("status", article_id, f"{old}->{new}"))

    @hookimpl
    def rk_media_withdrawn(self, article_id: int, keys: list[str], urls: list[str]) -> None:
        self.events.append(("withdrawn", article_id, str(len(keys))))


async def status_of(article_id: int) -> str:
    row = await Article.select(Article.status).where(Article.id == article_id).first()
    assert row is not None
    return str(row["status"])


async def decide(
    client: httpx.AsyncClient, article_id: int, action: str, **fields: str
) -> httpx.Response:
    """Post a decision from the article's own page, as its form does."""
    page = f"/admin/articles/{article_id}"
    return await post_form(client, page, f"{page}/{action}", {"go": "next", **fields})


async def pending_shows(console: Backend, count: int) -> list[int]:
    archive = Archive()
    return [
        await add_show(console.storage, archive, f"p{n}", brand="Acne", status="pending")
        for n in range(count)
    ]


async def test_next_pending_goes_oldest_first_and_wraps_around(console: Backend) -> None:
    first, second, third = await pending_shows(console, 3)
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    newest = await console.client.get(f"/admin/articles/{third}", headers=HTML)
    assert f'<a class="btn" href="/admin/articles/{first}">Next pending' in newest.text
    start = await console.client.get("/admin/articles/next")
    assert start.status_code == 303
    assert start.headers["location"] == f"/admin/articles/{first}"
    approved = await decide(console.client, first, "publish", expected="pending")
    assert approved.headers["location"] == f"/admin/articles/{second}"
    approved = await decide(console.client, third, "publish", expected="pending")
    assert approved.headers["location"] == f"/admin/articles/{second}"
    last = await console.client.get(f"/admin/articles/{second}", headers=HTML)
    assert "Next pending" not in last.text
    assert "No other article waits for review" in last.text
    done = await decide(console.client, second, "publish", expected="pending")
    assert done.headers["location"] == f"/admin/articles/{second}"
    empty = await console.client.get("/admin/articles/next")
    assert empty.headers["location"] == "/admin/articles?tab=pending"


async def test_a_rejection_needs_a_reason_and_shows_it(console: Backend) -> None:
    [article] = await pending_shows(console, 1)
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    for fields, words in [
        ({}, "Choose why this article is rejected."),
        ({"reason": "other"}, "Say in a few words why it is rejected."),
        ({"reason": "images", "note": "x" * 301}, "at most 300 characters"),
    ]:
        refused = await decide(console.client, article, "reject", expected="pending", **fields)
        assert refused.status_code == 422
        assert words in refused.text
        assert 'class="reject" data-key="r" open' in refused.text
    assert await status_of(article) == "pending"
    assert await ModerationAudit.count() == 0
    rejected = await decide(
        console.client,
        article,
        "reject",
        expected="pending",
        reason="wrong-brand",
        note=" menswear ",
    )
    assert rejected.status_code == 303
    assert await status_of(article) == "rejected"
    rows = await ModerationAudit.select(ModerationAudit.reason, ModerationAudit.new_status)
    assert rows == [{"reason": "Wrong brand or season: menswear", "new_status": "rejected"}]
    page = await console.client.get(f"/admin/articles/{article}", headers=HTML)
    assert "Rejected by <strong>mo</strong>" in page.text
    assert "Wrong brand or season: menswear" in page.text
    audit = await console.client.get("/admin/audit", headers=HTML)
    assert "Wrong brand or season: menswear" in audit.text


async def test_undo_puts_an_approved_article_back_audited_and_announced(
    console: Backend, register_plugin: Any
) -> None:
    recorder = register_plugin(Recorder(), "recorder")
    [article, other] = await pending_shows(console, 2)
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    await decide(console.client, article, "publish", expected="pending")
    page = await console.client.get(f"/admin/articles/{other}", headers=HTML)
    assert "You approved" in page.text
    match = UNDO.search(page.text)
    assert match is not None
    undone = await console.client.post(
        "/admin/articles/undo",
        data={"audit": match.group(1), "_csrf_token": csrf_of(page)},
        headers=HTML,
    )
    assert undone.status_code == 303
    assert undone.headers["location"] == f"/admin/articles/{article}"
    assert await status_of(article) == "pending"
    audit = await ModerationAudit.select(
        ModerationAudit.id,
        ModerationAudit.old_status,
        ModerationAudit.new_status,
        ModerationAudit.via,
        ModerationAudit.undoes,
    ).order_by(ModerationAudit.id)
    assert [(a["old_status"], a["new_status"], a["via"]) for a in audit] == [
        ("pending", "published", "web"),
        ("published", "pending", "web"),
    ]
    assert audit[1]["undoes"] == audit[0]["id"]
    assert recorder.events[0] == ("status", article, "pending->published")
    assert ("status", article, "published->pending") in recorder.events
    assert ("withdrawn", article, "6") in recorder.events
    again = await console.client.get(undone.headers["location"], headers=HTML)
    assert "is pending again" in again.text
    assert "You approved" not in again.text
    twice = await console.client.post(
        "/admin/articles/undo",
        data={"audit": match.group(1), "_csrf_token": csrf_of(again)},
        headers=HTML,
    )
    assert twice.status_code == 409
    assert await ModerationAudit.count() == 2


async def test_undo_back_to_published_and_only_your_own_last_decision(console: Backend) -> None:
    archive = Archive()
    live = await add_show(console.storage, archive, "live", brand="Acne")
    await account("mo", "moderator")
    await account("ro", "moderator")
    await sign_in(console.client, "mo")
    await decide(console.client, live, "reject", expected="published", reason="duplicate")
    page = await console.client.get("/admin/articles?tab=rejected", headers=HTML)
    assert "You rejected" in page.text
    match = UNDO.search(page.text)
    assert match is not None
    other = httpx.AsyncClient(base_url=console.url, timeout=30)
    async with other:
        await sign_in(other, "ro")
        theirs = await other.get("/admin/articles?tab=rejected", headers=HTML)
        assert "You rejected" not in theirs.text
        refused = await other.post(
            "/admin/articles/undo",
            data={"audit": match.group(1), "_csrf_token": csrf_of(theirs)},
            headers=HTML,
        )
        assert refused.status_code == 409
    assert await status_of(live) == "rejected"
    undone = await console.client.post(
        "/admin/articles/undo",
        data={"audit": match.group(1), "_csrf_token": csrf_of(page)},
        headers=HTML,
    )
    assert undone.status_code == 303
    assert await status_of(live) == "published"
    last = (
        await ModerationAudit.select(ModerationAudit.new_status, ModerationAudit.undoes)
        .order_by(ModerationAudit.id, ascending=False)
        .first()
    )
    assert last == {"new_status": "published", "undoes": int(match.group(1))}


async def test_a_batch_asks_first_with_the_count_and_titles(console: Backend) -> None:
    archive = Archive()
    ids = [
        await add_show(console.storage, archive, f"b{n}", brand=f"Brand {n}", status="pending")
        for n in range(7)
    ]
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    fields = {"action": "reject", "id": [str(n) for n in ids], "tab": "pending"}
    asked = await post_form(console.client, "/admin/articles", "/admin/articles/bulk", fields)
    assert asked.status_code == 200
    assert "Reject 7 articles?" in asked.text
    assert all(f"Brand {n}" in asked.text for n in range(5))
    assert "Brand 5" not in asked.text
    assert "and 2 more articles" in asked.text
    assert 'name="confirm" value="yes"' in asked.text
    assert await ModerationAudit.count() == 0
    token = csrf_of(asked)
    confirm = {**fields, "confirm": "yes", "_csrf_token": token}
    no_reason = await console.client.post("/admin/articles/bulk", data=confirm, headers=HTML)
    assert no_reason.status_code == 422
    assert "Choose why this article is rejected." in no_reason.text
    assert await ModerationAudit.count() == 0
    done = await console.client.post(
        "/admin/articles/bulk", data={**confirm, "reason": "not-fashion"}, headers=HTML
    )
    assert done.status_code == 303
    assert done.headers["location"] == "/admin/articles?tab=pending"
    reasons = await ModerationAudit.select(ModerationAudit.reason)
    assert reasons == [{"reason": "Not a runway or street-style gallery"}] * 7
    assert {await status_of(n) for n in ids} == {"rejected"}
