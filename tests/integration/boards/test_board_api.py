"""Boards over HTTP on SQLite and PostgreSQL (issue 33): sharing, capability tokens, edits,
published images only, the configured limits, and every bad input a one-line 4xx with
nothing written."""

from __future__ import annotations

import asyncio
import hashlib
import re

from rk.server.platform.db.tables import Board, BoardItem
from tests.integration.boards.boards import TIGHT, one_line_error, share
from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend

TOKEN = re.compile(r"^/boards/([A-Za-z0-9_-]{22})$")
EDIT = re.compile(r"^/boards/([A-Za-z0-9_-]{22})/edit\?key=([A-Za-z0-9_-]{32})$")


async def test_sharing_gives_a_view_link_and_a_separate_edit_link(
    site: Backend, archive: Archive
) -> None:
    looks = archive.images["acne-ss25"][:3]
    items = [{"image_id": looks[2], "note": "the coat"}, {"image_id": looks[0]}]
    created = await share(site, "  Coats for the trend story  ", items)
    view = TOKEN.match(created["view_url"])
    edit = EDIT.match(created["edit_url"])
    assert view
    assert edit
    assert edit.group(1) == view.group(1)
    assert edit.group(2) == created["edit_key"] != view.group(1)
    row = await Board.select().where(Board.view_token == view.group(1)).first()
    assert row is not None
    assert row["edit_hash"] == hashlib.sha256(created["edit_key"].encode()).hexdigest()
    assert created["edit_key"] not in str(row)
    assert "127.0.0.1" not in str(row)
    assert row["client_hash"] != hashlib.sha256(b"127.0.0.1").hexdigest()
    board = (await site.client.get(f"/api{created['view_url']}")).json()
    assert board["title"] == "Coats for the trend story"
    assert [(i["image_id"], i["note"], i["available"]) for i in board["items"]] == [
        (looks[2], "the coat", True),
        (looks[0], "", True),
    ]
    assert [i["page_url"] for i in board["items"]] == [f"/images/{looks[2]}", f"/images/{looks[0]}"]
    thumb = await site.client.get(board["items"][0]["thumb_url"])
    assert thumb.status_code == 200
    assert thumb.content[:2] == b"\xff\xd8"


async def test_two_boards_never_share_a_token(site: Backend, archive: Archive) -> None:
    look = archive.images["acne-fw24"][0]
    first = await share(site, "a", [{"image_id": look}])
    second = await share(site, "a", [{"image_id": look}])
    assert first["view_url"] != second["view_url"]
    assert first["edit_key"] != second["edit_key"]


async def test_only_published_images_go_on_a_board(site: Backend, archive: Archive) -> None:
    published = archive.images["acne-ss25"][0]
    hidden = [archive.images[name][0] for name in ("pending", "rejected", "deleted")]
    items = [{"image_id": image_id} for image_id in [published, *hidden, 999_999]]
    refused = await site.client.post("/api/boards", json={"title": "x", "items": items})
    error = one_line_error(refused, 400)
    assert "only published images" in error
    assert error.endswith("not: " + ", ".join(str(i) for i in [*hidden, 999_999]))
    assert await Board.count() == 0
    assert await BoardItem.count() == 0


async def test_edits_need_the_edit_key(site: Backend, archive: Archive) -> None:
    looks = archive.images["aurele-ss25"]
    created = await share(site, "mine", [{"image_id": looks[0]}, {"image_id": looks[1]}])
    api, key = f"/api{created['view_url']}", created["edit_key"]
    body = {"title": "theirs", "items": []}
    view_token = created["view_url"].rsplit("/", 1)[1]
    for headers in ({}, {"X-Edit-Key": "x" * 32}, {"X-Edit-Key": view_token}, {"X-Edit-Key": ""}):
        refused = await site.client.put(api, json=body, headers=headers)
        assert "edit key" in one_line_error(refused, 403)
    assert (await site.client.get(api)).json()["title"] == "mine"
    other = await share(site, "other", [])
    wrong_board = await site.client.put(
        f"/api{other['view_url']}", json=body, headers={"X-Edit-Key": key}
    )
    one_line_error(wrong_board, 403)
    for missing in ("/api/boards/" + "A" * 22, "/api/boards/short", "/api/boards/%3Cscript%3E"):
        one_line_error(await site.client.put(missing, json=body, headers={"X-Edit-Key": key}), 404)
        one_line_error(await site.client.get(missing), 404)


async def test_the_edit_key_renames_reorders_notes_adds_and_removes(
    site: Backend, archive: Archive
) -> None:
    a, b, c = archive.images["acne-ss25"][:3]
    created = await share(site, "draft", [{"image_id": a}, {"image_id": b, "note": "b"}])
    api, key = f"/api{created['view_url']}", {"X-Edit-Key": created["edit_key"]}
    items = [{"image_id": c, "note": "new"}, {"image_id": b, "note": "b, edited"}]
    edited = await site.client.put(api, json={"title": "final", "items": items}, headers=key)
    assert edited.status_code == 200, edited.text
    board = (await site.client.get(api)).json()
    assert board["title"] == "final" == edited.json()["title"]
    assert [(i["position"], i["image_id"], i["note"]) for i in board["items"]] == [
        (0, c, "new"),
        (1, b, "b, edited"),
    ]
    assert board["updated_at"] >= board["created_at"]


async def test_an_unpublished_image_is_no_longer_available_and_never_served(
    site: Backend, archive: Archive
) -> None:
    from tests.integration.public.archive import set_status

    kept, dropped = archive.images["zeta-ss25"][0], archive.images["acne-fw24"][1]
    created = await share(
        site, "t", [{"image_id": dropped, "note": "gone soon"}, {"image_id": kept}]
    )
    api, key = f"/api{created['view_url']}", {"X-Edit-Key": created["edit_key"]}
    await set_status(archive.shows["acne-fw24"], "rejected")
    board = (await site.client.get(api)).json()
    gone, still = board["items"]
    assert gone == {
        "position": 0,
        "image_id": dropped,
        "note": "gone soon",
        "available": False,
        "page_url": "",
        "thumb_url": "",
        "alt": "",
        "caption": "",
    }
    assert still["available"]
    assert still["thumb_url"]
    page = await site.client.get(created["view_url"])
    assert page.status_code == 200
    assert "No longer available" in page.text
    sha1 = hashlib.sha1(archive.pictures[dropped]).hexdigest()
    assert sha1 not in page.text
    assert sha1 not in str(board)
    assert f"/images/{dropped}" not in page.text
    swapped = [{"image_id": kept}, {"image_id": dropped, "note": "kept"}]
    moved = await site.client.put(api, json={"title": "t", "items": swapped}, headers=key)
    assert moved.status_code == 200, moved.text
    rejected = archive.images["rejected"][0]
    added = [*swapped, {"image_id": rejected}]
    refused = await site.client.put(api, json={"title": "t", "items": added}, headers=key)
    assert str(rejected) in one_line_error(refused, 400)
    assert len((await site.client.get(api)).json()["items"]) == 2


async def test_limits_are_the_operators(tight: Backend, tight_archive: Archive) -> None:
    looks = tight_archive.images["acne-ss25"]
    four = [{"image_id": image_id} for image_id in looks[:4]]
    too_many = await tight.client.post("/api/boards", json={"title": "t", "items": four})
    assert f"at most {TIGHT.max_items} items" in one_line_error(too_many, 413)
    long_title = await tight.client.post("/api/boards", json={"title": "x" * 11, "items": []})
    assert "title" in one_line_error(long_title, 400)
    long_note = await tight.client.post(
        "/api/boards", json={"items": [{"image_id": looks[0], "note": "123456"}]}
    )
    assert "note" in one_line_error(long_note, 400)
    twice = await tight.client.post(
        "/api/boards", json={"items": [{"image_id": looks[0]}, {"image_id": looks[0]}]}
    )
    assert "twice" in one_line_error(twice, 400)
    assert await Board.count() == 0
    attempts = await asyncio.gather(
        *(
            tight.client.post("/api/boards", json={"title": "ok", "items": four[:3]})
            for _ in range(6)
        )
    )
    made = [answer for answer in attempts if answer.status_code == 201]
    refused = [answer for answer in attempts if answer.status_code != 201]
    assert len(made) == TIGHT.per_address_per_day
    for answer in refused:
        assert "boards a day" in one_line_error(answer, 429)
        assert int(answer.headers["retry-after"]) > 0
    assert await Board.count() == 2
    first = made[0].json()
    grown = {"title": "ok", "items": four}
    too_big = await tight.client.put(
        f"/api{first['view_url']}", json=grown, headers={"X-Edit-Key": first["edit_key"]}
    )
    one_line_error(too_big, 413)


async def test_malformed_bodies_are_one_line_4xx(site: Backend, archive: Archive) -> None:
    look = archive.images["acne-ss25"][0]
    bad_bodies: list[tuple[bytes, int]] = [
        (b"not json", 400),
        (b'{"title": 7}', 422),
        (b'{"items": [{"image_id": "7"}]}', 422),
        (b'{"items": [{"image_id": 1, "extra": 1}]}', 422),
        (b'{"admin": true}', 422),
        (b'{"items": [{"image_id": -4}]}', 422),
        (b'{"items": [{"image_id": 99999999999999999999999}]}', 422),
        (f'{{"items": [{{"image_id": {look}, "note": 5}}]}}'.encode(), 422),
    ]
    for body, status in bad_bodies:
        answer = await site.client.post(
            "/api/boards", content=body, headers={"content-type": "application/json"}
        )
        one_line_error(answer, status)
    huge = b'{"title": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    too_big = await site.client.post(
        "/api/boards", content=huge, headers={"content-type": "application/json"}
    )
    one_line_error(too_big, 413)
    assert await Board.count() == 0
