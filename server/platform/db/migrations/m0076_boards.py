"""0076: boards without accounts (issue 33): ``boards`` and their ordered ``board_items``.

A board is reached by its capability tokens: ``view_token`` (unique, in the view link) and
``edit_hash`` (the SHA-256 of the edit token; the token itself is never stored).
``client_hash`` (an HMAC of the creating client's address) and ``created_at`` count
boards per address and day (index ``boards_client_created``). An item is one image at one
``position`` (0-based, rewritten whole on each edit) with a ``note``; items go with their
board (``ON DELETE CASCADE``) but not with their image: an image unpublished or removed
later leaves its item, shown as "no longer available". Index ``board_items_board_position``.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Column, Integer, Text, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute
from rk.server.platform.db.migration_steps import bigint_ids, table_ddl

BOARD_KEY = 'FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE'


async def forwards(engine: Engine) -> None:
    """Create ``boards`` and ``board_items`` with their indexes."""
    boards: dict[str, Column] = {
        "view_token": Varchar(length=64, unique=True),
        "edit_hash": Varchar(length=64),
        "title": Varchar(length=1000, default=""),
        "client_hash": Varchar(length=64, default=""),
        "created_at": BigInt(default=0),
        "updated_at": BigInt(default=0),
    }
    items: dict[str, Column] = {
        "board_id": BigInt(),
        "image_id": BigInt(),
        "position": Integer(default=0),
        "note": Text(default=""),
    }
    await execute(engine, table_ddl(engine, "boards", boards))
    await execute(engine, table_ddl(engine, "board_items", items, BOARD_KEY))
    await bigint_ids(engine, "boards", "board_items")
    await execute(engine, "CREATE INDEX boards_client_created ON boards (client_hash, created_at)")
    await execute(
        engine, "CREATE INDEX board_items_board_position ON board_items (board_id, position)"
    )
