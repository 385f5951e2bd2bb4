"""The edit page's form actions (issue 33): each changes exactly one thing of the board, and a
form from a stale page or with a bad field is refused before anything is written."""

from __future__ import annotations

import pytest
from litestar.datastructures import FormMultiDict

from rk.server.boards.forms import edited
from rk.server.boards.wire import BoardItemIn, BoardWrite
from rk.server.platform.http.errors import BadRequest, Conflict

BOARD = BoardWrite(
    title="draft",
    items=[BoardItemIn(image_id=1, note="a"), BoardItemIn(image_id=2), BoardItemIn(image_id=3)],
)


def ids(board: BoardWrite) -> list[int]:
    """The board's image ids in order."""
    return [item.image_id for item in board.items]


def form(**fields: str) -> FormMultiDict:
    """A posted form of these fields."""
    return FormMultiDict(fields)


def test_moves_swap_neighbours_and_stop_at_the_ends() -> None:
    assert ids(edited(BOARD, form(action="up", position="1", image_id="2"))[0]) == [2, 1, 3]
    assert ids(edited(BOARD, form(action="down", position="1", image_id="2"))[0]) == [1, 3, 2]
    assert ids(edited(BOARD, form(action="up", position="0", image_id="1"))[0]) == [1, 2, 3]
    assert ids(edited(BOARD, form(action="down", position="2", image_id="3"))[0]) == [1, 2, 3]


def test_note_remove_add_and_rename_change_one_thing() -> None:
    noted, said = edited(BOARD, form(action="note", position="2", image_id="3", note="c"))
    assert [item.note for item in noted.items] == ["a", "", "c"]
    assert said == "Note saved."
    assert ids(edited(BOARD, form(action="remove", position="0", image_id="1"))[0]) == [2, 3]
    added = edited(BOARD, form(action="add", image_id="9", note="new"))[0]
    assert added.items[-1] == BoardItemIn(image_id=9, note="new")
    renamed = edited(BOARD, form(action="rename", title="Final"))[0]
    assert renamed.title == "Final"
    assert renamed.items == BOARD.items


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"action": "up", "position": "1", "image_id": "3"}, Conflict),
        ({"action": "remove", "position": "7", "image_id": "1"}, Conflict),
        ({"action": "up", "position": "-1", "image_id": "1"}, BadRequest),
        ({"action": "add", "image_id": "1e9"}, BadRequest),
        ({"action": "add", "image_id": "9" * 19}, BadRequest),
        ({"action": "drop"}, BadRequest),
        ({}, BadRequest),
    ],
)
def test_stale_or_bad_forms_are_refused(fields: dict[str, str], error: type[Exception]) -> None:
    with pytest.raises(error):
        edited(BOARD, form(**fields))
