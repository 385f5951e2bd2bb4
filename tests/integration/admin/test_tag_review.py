"""Tags on the review page (issue 30): a moderator confirms, removes, restores and adds tags
through the page's forms, each decision audited; an unknown tag is refused in one line.

Tags are seeded as the tagging job writes them (``auto`` rows with scores); what changed is
read back from the tables, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import html

from rk.server.platform.db.tables import Image, ImageTag, ImageTagAudit
from tests.integration.admin.console import HTML, account, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


async def seed(console: Backend) -> tuple[int, list[int]]:
    """A pending show of three looks with ``auto`` tags; its id and its image ids."""
    article = await add_show(console.storage, Archive(), "tagged", status="pending", looks=3)
    rows = await Image.select(Image.id).where(Image.article_id == article).order_by(Image.id)
    ids = [int(row["id"]) for row in rows]
    seeded = [("dress", 0.31), ("coat", 0.29), ("plaid", 0.27)]
    for image_id, tags in zip(ids, seeded, strict=True):
        await ImageTag(image_id=image_id, tag=tags[0], score=tags[1], model="m").save()
    await ImageTag(image_id=ids[0], tag="floral", score=0.24, model="m").save()
    return article, ids


async def states() -> dict[tuple[int, str], str]:
    rows = await ImageTag.select(ImageTag.image_id, ImageTag.tag, ImageTag.state)
    return {(int(r["image_id"]), str(r["tag"])): str(r["state"]) for r in rows}


async def test_a_moderator_confirms_removes_and_adds_tags_audited(console: Backend) -> None:
    article, (first, second, _third) = await seed(console)
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    page = await console.client.get(f"/admin/articles/{article}", headers=HTML)
    assert page.status_code == 200
    assert f'id="tags-{first}"' in page.text
    assert '<span class="tag__name">dress</span> <span class="tag__score">0.31</span>' in page.text
    assert 'aria-label="Remove floral from Look 1"' in html.unescape(page.text)

    review = f"/admin/articles/{article}"
    action = f"/admin/images/{first}/tags"
    for tag, verb, flash in [
        ("floral", "remove", "Removed tag floral."),
        ("dress", "confirm", "Confirmed tag dress."),
        ("leather", "add", "Added tag leather."),
    ]:
        done = await post_form(
            console.client, review, action, {"tag": tag, "action": verb, "article": article}
        )
        assert done.status_code == 303, done.text
        assert done.headers["location"] == f"{review}#tags-{first}"
        assert flash.replace(" ", "%20") in done.headers.get("set-cookie", "")
    again = await post_form(
        console.client, review, f"/admin/images/{second}/tags", {"tag": "coat", "action": "remove"}
    )
    assert again.status_code == 303
    assert await states() == {
        (first, "dress"): "confirmed",
        (first, "floral"): "removed",
        (first, "leather"): "confirmed",
        (second, "coat"): "removed",
        (_third, "plaid"): "auto",
    }
    audit = await ImageTagAudit.select().order_by(ImageTagAudit.id)
    assert [(a["tag"], a["old_state"], a["new_state"], a["actor"]) for a in audit] == [
        ("floral", "auto", "removed", "mo"),
        ("dress", "auto", "confirmed", "mo"),
        ("leather", "", "confirmed", "mo"),
        ("coat", "auto", "removed", "mo"),
    ]
    shown = await console.client.get(review, headers=HTML)
    assert 'class="tag tag--removed"><span class="tag__name">floral</span>' in shown.text
    assert "Restore floral on Look 1" in html.unescape(shown.text)
    assert "Tag decisions" in shown.text

    restored = await post_form(
        console.client, review, action, {"tag": "floral", "action": "confirm", "article": article}
    )
    assert restored.status_code == 303
    assert (await states())[(first, "floral")] == "confirmed"


async def test_bad_tag_decisions_are_one_line_and_change_nothing(console: Backend) -> None:
    article, (first, *_rest) = await seed(console)
    await account("mo", "moderator")
    await sign_in(console.client, "mo")
    review = f"/admin/articles/{article}"
    before = await states()
    for data, status, words in [
        ({"tag": "nylon-ish", "action": "add", "article": article}, 400, "unknown tag"),
        ({"tag": "dress", "action": "burn", "article": article}, 400, "tag action must be one"),
        ({"tag": "stripe", "action": "remove", "article": article}, 404, "has no tag 'stripe'"),
    ]:
        refused = await post_form(console.client, review, f"/admin/images/{first}/tags", data)
        assert refused.status_code == status, refused.text[:300]
        assert words in html.unescape(refused.text)
    missing = await post_form(
        console.client, review, "/admin/images/99999999/tags", {"tag": "dress", "action": "add"}
    )
    assert missing.status_code == 404
    assert await states() == before
    assert await ImageTagAudit.count() == 0
