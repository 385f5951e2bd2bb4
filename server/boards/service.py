"""The rules of boards: published images only, configured limits, capability tokens.

Every input is checked here before anything is written: a title or note too long, too many
items, an image twice, an image that is not published (named in the one-line 400), too
many boards from one address today (429), a malformed or unknown view token (404), a wrong
edit key (403). Replacing a board may keep an item whose image was unpublished since (so
it can still be reordered or removed) but may not add one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from rk.core.api.storage import Storage
from rk.core.config import BoardSettings
from rk.server.boards import repository
from rk.server.boards.tokens import (
    EDIT_KEY,
    VIEW_TOKEN,
    client_digest,
    digest,
    key_matches,
    new_edit_key,
    new_view_token,
)
from rk.server.boards.wire import BoardCreated, BoardItemIn, BoardItemOut, BoardOut, BoardWrite
from rk.server.platform.http.errors import ApiError, BadRequest, NotFound
from rk.server.site import live_tile_rows, picture

SHOWN_IDS = 10
"""At most this many refused image ids are named in an error line."""


class Refused(ApiError):
    """A write the board rules refuse, with its status: 403 a missing or wrong edit key,
    413 more items than ``boards.max_items``, 429 past ``boards.per_address_per_day``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.headers = headers


def _checked(limits: BoardSettings, write: BoardWrite) -> tuple[str, list[tuple[int, str]]]:
    """The title (trimmed) and items (image id, trimmed note) of ``write``, or the first
    problem as an error."""
    title = write.title.strip()
    if len(title) > limits.title_max:
        raise BadRequest(f"title is longer than {limits.title_max} characters")
    if len(write.items) > limits.max_items:
        raise Refused(413, f"a board holds at most {limits.max_items} items")
    seen: set[int] = set()
    items: list[tuple[int, str]] = []
    for item in write.items:
        if item.image_id <= 0:
            raise BadRequest(f"image_id must be a positive integer, not {item.image_id}")
        if item.image_id in seen:
            raise BadRequest(f"image {item.image_id} is on the board twice")
        note = item.note.strip()
        if len(note) > limits.note_max:
            raise BadRequest(f"note of image {item.image_id} is longer than {limits.note_max}")
        seen.add(item.image_id)
        items.append((item.image_id, note))
    return title, items


async def _only_published(image_ids: Sequence[int], kept: set[int]) -> None:
    """BadRequest naming the ids among ``image_ids`` that are neither published nor ``kept``."""
    wanted = [image_id for image_id in image_ids if image_id not in kept]
    live = await live_tile_rows(wanted)
    refused = [image_id for image_id in wanted if image_id not in live]
    if refused:
        named = ", ".join(str(image_id) for image_id in refused[:SHOWN_IDS])
        more = f" and {len(refused) - SHOWN_IDS} more" if len(refused) > SHOWN_IDS else ""
        raise BadRequest(f"only published images can go on a board; not: {named}{more}")


async def create(
    limits: BoardSettings, write: BoardWrite, address: str, secret: str, storage: Storage
) -> BoardCreated:
    """Store a new board for the client at ``address`` (kept as its HMAC under ``secret``);
    both links and the board."""
    title, items = _checked(limits, write)
    await _only_published([image_id for image_id, _ in items], set())
    now, client = int(time.time()), client_digest(secret, address)
    view, key, per_day = new_view_token(), new_edit_key(), limits.per_address_per_day
    made = await repository.insert_board(view, digest(key), title, client, items, now, per_day)
    if made is None:
        raise Refused(429, f"at most {per_day} boards a day per address", {"Retry-After": "3600"})
    row = await board(view)
    return BoardCreated(
        view_url=view_path(view),
        edit_url=edit_path(view, key),
        edit_key=key,
        board=await board_out(storage, row),
    )


async def board(view_token: str) -> dict[str, Any]:
    """The board row of a view token; NotFound for a malformed or unknown one."""
    row = await repository.board_row(view_token) if VIEW_TOKEN.match(view_token) else None
    if row is None:
        raise NotFound("no such board")
    return row


def check_key(row: dict[str, Any], key: str | None) -> None:
    """Refused (403) unless ``key`` is the board's edit key (compared in constant time)."""
    if not key or not EDIT_KEY.match(key) or not key_matches(key, str(row["edit_hash"])):
        raise Refused(403, "this link cannot edit the board: the edit key is missing or wrong")


async def replace(limits: BoardSettings, row: dict[str, Any], write: BoardWrite) -> None:
    """Set the board's title and items (rename, notes, order, add, remove in one write)."""
    title, items = _checked(limits, write)
    kept = {int(item["image_id"]) for item in await repository.item_rows(int(row["id"]))}
    await _only_published([image_id for image_id, _ in items], kept)
    await repository.replace_board(int(row["id"]), title, items, int(time.time()))


async def current(row: dict[str, Any]) -> BoardWrite:
    """The board as it stands, as a ``BoardWrite`` (for an edit to change one thing of)."""
    items = await repository.item_rows(int(row["id"]))
    return BoardWrite(
        title=str(row["title"]),
        items=[BoardItemIn(image_id=int(i["image_id"]), note=str(i["note"])) for i in items],
    )


async def board_out(storage: Storage, row: dict[str, Any]) -> BoardOut:
    """The board as shown: items in order, each available one with its thumbnail and page,
    each unpublished one with neither."""
    items = await repository.item_rows(int(row["id"]))
    live = await live_tile_rows([int(item["image_id"]) for item in items])
    shown: list[BoardItemOut] = []
    for position, item in enumerate(items):
        image_id, note = int(item["image_id"]), str(item["note"])
        image = live.get(image_id)
        if image is None:
            gone = BoardItemOut(position=position, image_id=image_id, note=note, available=False)
            shown.append(gone)
            continue
        pic = await picture(
            storage, image, str(image["brand_name"]), str(image["season"]), str(image["title"])
        )
        shown.append(
            BoardItemOut(
                position=position,
                image_id=image_id,
                note=note,
                available=True,
                page_url=f"/images/{image_id}",
                thumb_url=pic.thumb_url or pic.url,
                alt=pic.alt,
                caption=pic.alt,
            )
        )
    return BoardOut(
        view_url=view_path(str(row["view_token"])),
        title=str(row["title"]),
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        items=shown,
    )


def view_path(view_token: str) -> str:
    """The board's view link (path)."""
    return f"/boards/{view_token}"


def edit_path(view_token: str, key: str) -> str:
    """The board's edit link (path), which carries the edit key."""
    return f"/boards/{view_token}/edit?key={key}"
