"""Brands with published shows, A–Z with their counts, and one brand by its public uid.

The counts are the published ones the database keeps (``repository.brands``).
"""

from __future__ import annotations

import unicodedata
from itertools import groupby

from msgspec import Struct

from rk.server.platform.http.errors import NotFound
from rk.server.site.repository.brands import published_brand, published_brands
from rk.server.site.show_filters import UID


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
    found = await published_brands()
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
    row = await published_brand(uid) if UID.match(uid) else None
    if row is None:
        raise NotFound(f"no brand {uid[:40]!r} with published shows")
    return BrandCount(uid=str(row["uid"]), name=str(row["name"]), shows=int(row["n"]))
