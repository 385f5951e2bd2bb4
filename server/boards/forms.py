"""The edit page's forms without JavaScript: one posted action changes one thing of a board.

Each action (rename, note, up, down, remove, add) turns the board as it stands into the
board as it should be, which ``service.replace`` then checks and writes like any API edit.
An item form names its position and image, so a stale page moving the wrong item is a 409.
"""

from __future__ import annotations

from litestar.datastructures import FormMultiDict

from rk.server.boards.wire import BoardItemIn, BoardWrite
from rk.server.platform.http.errors import BadRequest, Conflict

ACTIONS = ("rename", "note", "up", "down", "remove", "add")


def _number(form: FormMultiDict, name: str) -> int:
    """A form field as a non-negative integer, or a one-line 400."""
    text = str(form.get(name, "")).strip()
    if not text.isdigit() or len(text) > 18:
        raise BadRequest(f"{name} must be a whole number")
    return int(text)


def _at(board: BoardWrite, form: FormMultiDict) -> int:
    """The position the form names, checked against the image it says is there."""
    position, image_id = _number(form, "position"), _number(form, "image_id")
    if position >= len(board.items) or board.items[position].image_id != image_id:
        raise Conflict("the board changed since this page was loaded; reload it")
    return position


def edited(board: BoardWrite, form: FormMultiDict) -> tuple[BoardWrite, str]:
    """The board after the form's action, and a line saying what changed."""
    action = str(form.get("action", ""))
    if action not in ACTIONS:
        raise BadRequest(f"action must be one of {', '.join(ACTIONS)}")
    items = list(board.items)
    if action == "rename":
        return BoardWrite(title=str(form.get("title", "")), items=items), "Title saved."
    if action == "add":
        added = BoardItemIn(image_id=_number(form, "image_id"), note=str(form.get("note", "")))
        return BoardWrite(title=board.title, items=[*items, added]), "Image added."
    i = _at(board, form)
    if action == "note":
        items[i] = BoardItemIn(image_id=items[i].image_id, note=str(form.get("note", "")))
        said = "Note saved."
    elif action == "remove":
        del items[i]
        said = "Item removed."
    else:
        j = i - 1 if action == "up" else i + 1
        if 0 <= j < len(items):
            items[i], items[j] = items[j], items[i]
        said = "Item moved."
    return BoardWrite(title=board.title, items=items), said
