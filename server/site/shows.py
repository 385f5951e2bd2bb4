"""Published shows, newest first, filtered and paged by keyset: the home page and brand pages.

"Newest" is the show date (ISO ``YYYY-MM-DD``), then the id; shows without a date come
last. A page ends with the cursor of the next one (``before`` = the last id shown), so
paging stays one index range read however deep a visitor goes.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.site.pictures import Picture, picture_in
from rk.server.site.repository.images import image_rows
from rk.server.site.repository.shows import card_rows, show_date
from rk.server.site.seasons.names import season_slug
from rk.server.site.show_filters import BadFilter, ShowFilters

PAGE_SIZE = 48


class BrandName(Struct, frozen=True, kw_only=True):
    """A brand as pages link to it."""

    uid: str
    name: str


class ShowFacts(Struct, frozen=True, kw_only=True):
    """What every view of a published show names first: its id, names, place and source.

    ``season_slug`` is the season's page (``/seasons/<slug>``), "" when it names none.
    """

    id: int
    title: str
    brand: BrandName | None
    season: str
    season_slug: str
    city: str
    date: str
    source: str


def brand_of(row: dict[str, Any]) -> BrandName | None:
    """The brand of an article row (``brand_uid``, ``brand_name``), None for street style
    without one."""
    name = str(row["brand_name"])
    return BrandName(uid=str(row["brand_uid"]), name=name) if name else None


def facts_of(row: dict[str, Any]) -> dict[str, Any]:
    """The ``ShowFacts`` fields of an article row, by name."""
    return {
        "id": int(row["id"]),
        "title": str(row["title"]),
        "brand": brand_of(row),
        "season": str(row["season"]),
        "season_slug": season_slug(str(row["season"])),
        "city": str(row["city"]),
        "date": str(row["date"]),
        "source": str(row["source"]),
    }


class ShowCard(ShowFacts, frozen=True, kw_only=True):
    """One published show in a list, with its cover thumbnail."""

    kind: str
    images: int
    cover: Picture | None
    updated_at: int


class ShowList(Struct, frozen=True, kw_only=True):
    """One page of shows; ``next_before`` is the cursor of the older ones (None: no more)."""

    items: list[ShowCard]
    next_before: int | None

    def newest(self) -> int:
        """The newest change among the listed shows (for Last-Modified)."""
        return max((card.updated_at for card in self.items), default=0)


async def cards(storage: Storage, found: list[dict[str, Any]]) -> list[ShowCard]:
    """ShowCards of card rows, covers included, in the given order."""
    covers = await image_rows([int(r["cover_id"]) for r in found if r["cover_id"]])
    out = []
    for row in found:
        cover_row = covers.get(int(row["cover_id"] or 0))
        cover = None if cover_row is None else await picture_in(storage, cover_row, row)
        out.append(
            ShowCard(
                **facts_of(row),
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
    anchor = None
    if before:
        date = await show_date(before)
        if date is None:
            raise BadFilter(f"before={before} names no show; start again from the first page")
        anchor = (date, before)
    found = await card_rows(filters, limit + 1, anchor)
    more = len(found) > limit
    items = await cards(storage, found[:limit])
    return ShowList(items=items, next_before=items[-1].id if more and items else None)
