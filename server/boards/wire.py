"""The wire types of boards: what a client sends to create or replace one, what it gets back.

Inbound types forbid unknown fields; lengths and counts are checked by ``service`` against
the operator's ``boards`` settings (they are configurable, so not fixed in the types).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from rk.core.api.wire import MAX_ID

ImageId = Annotated[int, Meta(ge=1, le=MAX_ID)]
"""An image's id as the database keeps it (a positive 64-bit integer)."""


class BoardItemIn(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One image to put on a board, with the visitor's note."""

    image_id: ImageId
    note: str = ""


class BoardWrite(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole board: its title and items in order (create, or replace with the edit key)."""

    title: str = ""
    items: list[BoardItemIn] = []


class BoardItemOut(Struct, frozen=True, kw_only=True):
    """One item as shown: ``available`` false once its image is not published any more,
    and then no ``thumb_url`` and no page link."""

    position: int
    image_id: int
    note: str
    available: bool
    page_url: str = ""
    thumb_url: str = ""
    alt: str = ""
    caption: str = ""


class BoardOut(Struct, frozen=True, kw_only=True):
    """A shared board as anyone with its view link sees it."""

    view_url: str
    title: str
    created_at: int
    updated_at: int
    items: list[BoardItemOut]


class BoardCreated(Struct, frozen=True, kw_only=True):
    """The answer to sharing: both links (the edit link is shown this once), and the board."""

    view_url: str
    edit_url: str
    edit_key: str
    board: BoardOut
