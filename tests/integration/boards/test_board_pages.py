"""Board pages without JavaScript (issue 33): the shared board, its edit forms, and the
local board's page; never indexed, never cached, hostile text escaped."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.integration.boards.test_board_api import one_line_error, share
from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend

HOSTILE = '</textarea><script>alert(1)</script>"'


async def test_a_board_page_lists_items_in_order_with_notes(
    site: Backend, archive: Archive
) -> None:
    a, b = archive.images["acne-ss25"][:2]
    created = await share(site, HOSTILE[:40], [{"image_id": b, "note": HOSTILE}, {"image_id": a}])
    page = await site.client.get(created["view_url"])
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    assert "noindex" in page.headers["x-robots-tag"]
    assert '<meta name="robots" content="noindex, nofollow">' in page.text
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert page.text.index(f'href="/images/{b}"') < page.text.index(f'href="/images/{a}"')
    assert created["edit_key"] not in page.text
    assert "/edit" not in page.text


async def test_the_edit_page_needs_the_key(site: Backend, archive: Archive) -> None:
    created = await share(site, "t", [{"image_id": archive.images["acne-ss25"][0]}])
    view = created["view_url"]
    for suffix in ("/edit", "/edit?key=" + "A" * 32, "/edit?key=<x>"):
        refused = await site.client.get(view + suffix, headers={"accept": "text/html"})
        assert refused.status_code == 403
        assert "edit key" in refused.text
    one_line_error(await site.client.get(view + "/edit"), 403)
    missing = await site.client.get("/boards/" + "B" * 22, headers={"accept": "text/html"})
    assert missing.status_code == 404
    page = await site.client.get(created["edit_url"])
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    assert 'name="action" value="up"' not in page.text  # the first item cannot move up


async def test_edit_forms_work_without_javascript(site: Backend, archive: Archive) -> None:
    a, b, c = archive.images["acne-ss25"][:3]
    created = await share(site, "draft", [{"image_id": a}, {"image_id": b}])
    view, key = created["view_url"], created["edit_key"]

    async def post(fields: dict[str, str | int]) -> None:
        answer = await site.client.post(f"{view}/edit", data={"key": key, **fields})
        assert answer.status_code == 303, answer.text
        assert parse_qs(urlsplit(answer.headers["location"]).query)["key"] == [key]

    await post({"action": "rename", "title": "Final"})
    await post({"action": "down", "position": 0, "image_id": a})
    await post({"action": "note", "position": 0, "image_id": b, "note": "first now"})
    await post({"action": "add", "image_id": c, "note": "added"})
    await post({"action": "remove", "position": 1, "image_id": a})
    board = (await site.client.get(f"/api{view}")).json()
    assert board["title"] == "Final"
    assert [(i["image_id"], i["note"]) for i in board["items"]] == [(b, "first now"), (c, "added")]
    stale = await site.client.post(
        f"{view}/edit", data={"key": key, "action": "up", "position": 1, "image_id": a}
    )
    one_line_error(stale, 409)
    for fields in (
        {"key": key, "action": "explode"},
        {"key": key, "action": "add", "image_id": "x"},
        {"key": key, "action": "add", "image_id": archive.images["pending"][0]},
    ):
        one_line_error(await site.client.post(f"{view}/edit", data=fields), 400)
    one_line_error(await site.client.post(f"{view}/edit", data={"action": "rename"}), 403)
    assert len((await site.client.get(f"/api{view}")).json()["items"]) == 2


async def test_the_local_board_page_explains_itself_without_javascript(site: Backend) -> None:
    page = await site.client.get("/boards")
    assert page.status_code == 200
    assert "Saving looks to a board needs JavaScript." in page.text
    assert "data-local-board hidden" in page.text
    assert "/static/boards.js" in page.text
    home = await site.client.get("/")
    assert 'href="/boards"' in home.text
    assert "<button" not in home.text.split("<main")[1]
