"""Brands with published shows, A–Z with their counts, and one brand by its public uid.

The counts are read from ``public_facet_counts`` (kept by triggers, migration 0032), where a
brand's value is its id as text.
"""

from __future__ import annotations

import unicodedata
from itertools import groupby

from msgspec import Struct

from rk.server.brands import UID_MATCH
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.http.errors import NotFound
from rk.server.site.show_filters import UID

COUNTS = (
    "SELECT b.uid, b.name, c.n FROM public_facet_counts c"
    " JOIN brands b ON c.value = CAST(b.id AS VARCHAR(200)) WHERE c.facet = 'brand' AND c.n > 0"
)


class BrandCount(Struct, frozen=True, kw_only=True):
    """A brand and how many published shows it has."""

    uid: str
    name: str
    shows: int


class Letter(Struct, frozen=True, kw_only=True):
    """The brands under one initial (``#`` for names starting with a digit or a sign)."""

    letter: str
    brands: list[BrandCount]


class BrandIndex(Struct, frozen=True, kw_only=True):
    """Every brand with a published show, A–Z."""

    letters: list[Letter]
    total: int


def initial(name: str) -> str:
    """``A``–``Z`` by the name's first letter, accents folded (``É`` → ``E``); ``#`` else."""
    folded = unicodedata.normalize("NFKD", name.strip()[:1]).encode("ascii", "ignore").decode()
    first = folded.upper()[:1]
    return first if "A" <= first <= "Z" else "#"


async def brand_index() -> BrandIndex:
    """Every brand that has at least one published show, grouped by initial."""
    found = await rows(COUNTS)
    brands = sorted(
        (BrandCount(uid=str(r["uid"]), name=str(r["name"]), shows=int(r["n"])) for r in found),
        key=lambda b: (initial(b.name) == "#", initial(b.name), b.name.casefold()),
    )
    letters = [
        Letter(letter=letter, brands=list(group))
        for letter, group in groupby(brands, key=lambda b: initial(b.name))
    ]
    return BrandIndex(letters=letters, total=len(brands))


async def brand_by_uid(uid: str) -> BrandCount:
    """The brand with this uid and its published show count; NotFound when it has none.

    A brand with no published show has no public page: it would be an empty page that
    tells a visitor only that rk knows the name.
    """
    if not UID.match(uid):
        raise NotFound(f"no brand {uid[:40]!r} with published shows")
    found = await rows(f"{COUNTS} AND {UID_MATCH}", uid, uid)
    if not found:
        raise NotFound(f"no brand {uid[:40]!r} with published shows")
    row = min(found, key=lambda r: r["uid"] != uid)  # its own uid before an old one
    return BrandCount(uid=str(row["uid"]), name=str(row["name"]), shows=int(row["n"]))
