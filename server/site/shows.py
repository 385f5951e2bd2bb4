"""Published shows, newest first, filtered and paged by keyset: the home page and brand pages.

"Newest" is the show date (ISO ``YYYY-MM-DD``), then the id; shows without a date come
last. A page ends with the cursor of the next one (``before`` = the last id shown), so
paging stays one index range read however deep a visitor goes.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import LIVE, marks, rows
from rk.server.site.pictures import IMAGE_COLUMNS, Picture, picture
from rk.server.site.show_filters import BadFilter, ShowFilters, where

PAGE_SIZE = 48
CARD_SQL = (
    "SELECT a.id, a.title, a.season, a.city, a.date, a.source, a.kind, a.updated_at,"
    " COALESCE(b.uid, '') AS brand_uid, COALESCE(b.name, '') AS brand_name,"
    " (SELECT COUNT(*) FROM images i WHERE i.article_id = a.id) AS images,"
    " (SELECT i.id FROM images i WHERE i.article_id = a.id"
    "  ORDER BY i.role DESC, i.position, i.id LIMIT 1) AS cover_id"
    " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
)
"""One card per article: its names, image count and cover (first look, else first detail)."""


class BrandName(Struct, frozen=True, kw_only=True):
    """A brand as pages link to it."""

    uid: str
    name: str


class ShowCard(Struct, frozen=True, kw_only=True):
    """One published show in a list, with its cover thumbnail."""

    id: int
    title: str
    brand: BrandName | None
    season: str
    city: str
    date: str
    source: str
    kind: str
    images: int
    cover: Picture | None
    updated_at: int


class ShowList(Struct, frozen=True, kw_only=True):
    """One page of shows; ``next_before`` is the cursor of the older ones (None: no more)."""

    items: list[ShowCard]
    next_before: int | None


async def _cover_rows(ids: list[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    found = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.id IN ({marks(len(ids))})", *ids
    )
    return {int(row["id"]): row for row in found}


async def cards(storage: Storage, found: list[dict[str, Any]]) -> list[ShowCard]:
    """ShowCards of ``CARD_SQL`` rows, covers included, in the given order."""
    covers = await _cover_rows([int(r["cover_id"]) for r in found if r["cover_id"]])
    out = []
    for row in found:
        brand = str(row["brand_name"])
        cover_row = covers.get(int(row["cover_id"] or 0))
        cover = None
        if cover_row is not None:
            cover = await picture(storage, cover_row, brand, str(row["season"]), str(row["title"]))
        out.append(
            ShowCard(
                id=int(row["id"]),
                title=str(row["title"]),
                brand=BrandName(uid=str(row["brand_uid"]), name=brand) if brand else None,
                season=str(row["season"]),
                city=str(row["city"]),
                date=str(row["date"]),
                source=str(row["source"]),
                kind=str(row["kind"]),
                images=int(row["images"]),
                cover=cover,
                updated_at=int(row["updated_at"] or 0),
            )
        )
    return out


async def list_shows(
    storage: Storage, filters: ShowFilters, before: int = 0, limit: int = PAGE_SIZE
) -> ShowList:
    """Up to ``limit`` published shows matching ``filters``, older than show ``before``.

    Raises:
        BadFilter: ``before`` names no show.
    """
    conditions, args = where(filters)
    if before:
        anchor = await rows("SELECT date FROM articles WHERE id = {}", before)
        if not anchor:
            raise BadFilter(f"before={before} names no show; start again from the first page")
        conditions += " AND (a.date < {} OR (a.date = {} AND a.id < {}))"
        date = str(anchor[0]["date"])
        args += [date, date, before]
    found = await rows(
        f"{CARD_SQL} WHERE {LIVE}{conditions} ORDER BY a.date DESC, a.id DESC LIMIT {{}}",
        *args,
        limit + 1,
    )
    more = len(found) > limit
    found = found[:limit]
    items = await cards(storage, found)
    return ShowList(items=items, next_before=items[-1].id if more and items else None)
