"""SQL of boards: the board row by its view token, its items in order, the published images
they may show, and the daily count of boards per client address."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rk.server.platform.db.sql_rows import engine_type, rows
from rk.server.platform.db.tables import Board, BoardItem
from rk.server.platform.db.write_transactions import write_transaction

DAY_S = 86_400
"""The window of the per-address limit on new boards."""
INSERT_BOARD = (
    "INSERT INTO boards (view_token, edit_hash, title, client_hash, created_at, updated_at)"
    " VALUES ({}, {}, {}, {}, {}, {}) RETURNING id"
)


async def created_since(client_hash: str, since: int) -> int:
    """How many boards the client with this address digest created since ``since``."""
    found = await rows(
        "SELECT COUNT(*) AS n FROM boards WHERE client_hash = {} AND created_at >= {}",
        client_hash,
        since,
    )
    return int(found[0]["n"])


async def board_row(view_token: str) -> dict[str, Any] | None:
    """The board with this view token, or None."""
    found = await rows(
        "SELECT id, view_token, edit_hash, title, created_at, updated_at FROM boards"
        " WHERE view_token = {}",
        view_token,
    )
    return found[0] if found else None


async def item_rows(board_id: int) -> list[dict[str, Any]]:
    """The board's items in order: image id, position and note."""
    return await rows(
        "SELECT image_id, position, note FROM board_items WHERE board_id = {}"
        " ORDER BY position, id",
        board_id,
    )


async def insert_board(
    view_token: str,
    edit_hash: str,
    title: str,
    client_hash: str,
    items: Sequence[tuple[int, str]],
    now: int,
    per_day: int,
) -> int | None:
    """A new board with its items (image id, note) in order, in one transaction; its id, or
    None when the client already created ``per_day`` boards in the last day (0: no limit).

    The count is taken inside the transaction, under a per-client lock on PostgreSQL (one
    writer at a time on SQLite), so two boards at once cannot both take the last slot.
    """
    async with write_transaction(Board):
        if per_day:
            if engine_type() == "postgres":
                await rows("SELECT pg_advisory_xact_lock(hashtext({}))", client_hash)
            if await created_since(client_hash, now - DAY_S) >= per_day:
                return None
        made = await rows(INSERT_BOARD, view_token, edit_hash, title, client_hash, now, now)
        board_id = int(made[0]["id"])
        await _insert_items(board_id, items)
    return board_id


async def replace_board(
    board_id: int, title: str, items: Sequence[tuple[int, str]], now: int
) -> None:
    """Set the board's title and replace its items (image id, note) in order, atomically."""
    async with write_transaction(Board):
        await Board.update({Board.title: title, Board.updated_at: now}).where(Board.id == board_id)
        await BoardItem.delete().where(BoardItem.board_id == board_id)
        await _insert_items(board_id, items)


async def _insert_items(board_id: int, items: Sequence[tuple[int, str]]) -> None:
    """Insert the items at positions 0, 1, … (inside the caller's transaction)."""
    if items:
        await BoardItem.insert(
            *[
                BoardItem(board_id=board_id, image_id=image_id, position=i, note=note)
                for i, (image_id, note) in enumerate(items)
            ]
        )
