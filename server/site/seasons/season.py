"""One season's page: every published show of the season, grouped as Vogue's season pages
are, by designer A–Z under their initial, street style after the designers.

A season holds at most a few hundred shows, so its members (ids and names) are read and
sorted here, accents folded as the brands' index folds them; a page then reads the cards
of its own shows only. Pages continue after the last show listed (``after`` = its id), so
a show published meanwhile never repeats one or hides another.
"""

from __future__ import annotations

import unicodedata
from itertools import groupby
from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.site.brands import initial
from rk.server.site.repository.seasons import season_members
from rk.server.site.repository.shows import card_rows_by_id
from rk.server.site.seasons.index import SeasonCount, season_named
from rk.server.site.show_filters import KINDS, BadFilter
from rk.server.site.shows import BrandName, ShowCard, cards

SEASON_PAGE = 60


class Designer(Struct, frozen=True, kw_only=True):
    """One designer's shows of the season (``brand`` None: a street-style series)."""

    name: str
    brand: BrandName | None
    shows: list[ShowCard]


class SeasonGroup(Struct, frozen=True, kw_only=True):
    """The designers under one initial (``A``…``Z``, ``#``), or one kind's shows
    (``Street style``) after them."""

    label: str
    designers: list[Designer]


class SeasonPage(Struct, frozen=True, kw_only=True):
    """A page of one season's published shows, grouped; ``next_after`` is the cursor of the
    following page (None: no more)."""

    season: SeasonCount
    groups: list[SeasonGroup]
    next_after: int | None

    def newest(self) -> int:
        """The newest change among the listed shows (for Last-Modified)."""
        listed = [c.updated_at for g in self.groups for d in g.designers for c in d.shows]
        return max(listed, default=0)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()


def order_key(row: dict[str, Any]) -> tuple[int, str, str, int]:
    """Designers A–Z (names starting with a sign or digit after Z), then brandless shows by
    title; ties by id."""
    brand = str(row["brand_name"])
    if brand:
        return (0 if initial(brand) != "#" else 1, _folded(brand), "", int(row["id"]))
    return (2, str(row["kind"]), _folded(str(row["title"])), int(row["id"]))


def group_label(card: ShowCard) -> str:
    """The heading a show is listed under: its designer's initial, else its kind."""
    if card.brand is not None:
        return initial(card.brand.name)
    return KINDS.get(card.kind, "Other shows")


def grouped(shown: list[ShowCard]) -> list[SeasonGroup]:
    """Cards in page order, grouped by heading, then by designer (a title without one)."""
    return [
        SeasonGroup(
            label=label,
            designers=[
                Designer(name=name, brand=group[0].brand, shows=group)
                for name, designer in groupby(
                    in_label, key=lambda c: c.brand.name if c.brand else c.title
                )
                for group in [list(designer)]
            ],
        )
        for label, in_label in groupby(shown, key=group_label)
    ]


def page_ids(members: list[dict[str, Any]], after: int, limit: int) -> tuple[list[int], bool]:
    """The ids of the page after show ``after`` (0: the first), and whether more follow.

    Raises:
        BadFilter: ``after`` is not a published show of this season.
    """
    ordered = [int(r["id"]) for r in sorted(members, key=order_key)]
    start = 0
    if after:
        if after not in ordered:
            raise BadFilter(f"after={after} is no show of this season; start from the first page")
        start = ordered.index(after) + 1
    return ordered[start : start + limit], start + limit < len(ordered)


async def season_page(
    storage: Storage, slug: str, after: int = 0, limit: int = SEASON_PAGE
) -> SeasonPage:
    """The season named by ``slug`` and a page of its published shows; NotFound when none."""
    season, names = await season_named(slug)
    members = await season_members(names)
    ids, more = page_ids(members, after, limit)
    by_id = await card_rows_by_id(ids)
    shown = await cards(storage, [by_id[i] for i in ids if i in by_id])
    return SeasonPage(
        season=season,
        groups=grouped(shown),
        next_after=ids[-1] if more and ids else None,
    )
