"""The filters of the public show lists, checked once for the pages and the JSON API alike.

A filter comes from the URL (``/?brand=…&season=…&year=2025&city=Paris&kind=runway&before=…``)
so a filtered view can be shared. Each value is checked here and a bad one is a 400 with
a sentence saying what is wrong; a brand uid that names no brand with a published show is
a 404 (as ``/brands/<uid>`` is), and a pre-0050 uid is taken and shown as the brand's uid.
A year is the season's year (``seasons.names``): the seasons it takes in are named here
once, with the seasons naming no year, whose shows count by their date.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from msgspec import Struct

from rk.core.api.wire import MAX_ID
from rk.server.platform.http.errors import BadRequest, NotFound
from rk.server.site.params import FilterQuery
from rk.server.site.repository.brands import published_brand
from rk.server.site.repository.seasons import published_seasons
from rk.server.site.seasons.names import season_year
from rk.server.tags import shipped_vocabulary

KINDS = {"runway": "Runway", "street": "Street style"}
LONG_FACETS = ("season", "year", "city", "brand", "tag")
"""The filters whose values the sidebar lists only the first of, until ``?all=`` asks."""
MAX_TEXT = 200
"""Longest season or city (the column width)."""
UID = re.compile(r"^[A-Za-z0-9]{1,32}$")
YEAR = re.compile(r"^(19|20|21)\d\d$")
CURSOR = re.compile(r"^[1-9]\d{0,17}$")


class BadFilter(BadRequest):
    """A filter value rk cannot use."""


class ShowFilters(Struct, frozen=True, kw_only=True):
    """Checked filters of a show list; ``brand_id`` is resolved from ``brand`` (a uid).

    ``year_seasons`` are the seasons of ``year``; ``yearless_seasons`` those naming no year
    (whose shows count by date). Both empty: the year is the show date's. ``expand`` is
    the filter whose every value the sidebar lists (``?all=``), "" for none.
    """

    brand: str = ""
    brand_id: int = 0
    brand_name: str = ""
    season: str = ""
    year: int = 0
    city: str = ""
    kind: str = ""
    tag: str = ""
    year_seasons: tuple[str, ...] = ()
    yearless_seasons: tuple[str, ...] = ()
    expand: str = ""

    def query(self, **changes: str | int | None) -> str:
        """The URL query of these filters with ``changes`` applied (None or "" removes one)."""
        values: dict[str, str | int | None] = {
            "brand": self.brand,
            "season": self.season,
            "year": self.year or None,
            "city": self.city,
            "kind": self.kind,
            "tag": self.tag,
        }
        values.update(changes)
        kept = {key: value for key, value in values.items() if value not in (None, "", 0)}
        return urlencode(kept)

    @property
    def active(self) -> bool:
        """True when any filter is set."""
        return bool(self.brand or self.season or self.year or self.city or self.kind or self.tag)


def _text(name: str, value: str | None) -> str:
    text = " ".join((value or "").split())
    if any(ord(char) < 32 for char in text):
        raise BadFilter(f"{name} contains control characters")
    if len(text) > MAX_TEXT:
        raise BadFilter(f"{name} is {len(text)} characters long; at most {MAX_TEXT}")
    return text


async def parse_filters(query: FilterQuery, tags: frozenset[str] | None = None) -> ShowFilters:
    """Checked filters from the URL's raw values (None or empty = not filtered).

    A brand is taken by either uid, only while it has a published show: a filter by a brand
    the public cannot see must not tell its name. A tag must be one of ``tags`` (the
    backend's vocabulary; the shipped one when None).
    """
    brand_uid = (query.brand or "").strip()
    brand_id, brand_name = 0, ""
    if brand_uid:
        if not UID.match(brand_uid):
            raise BadFilter(f"brand {brand_uid[:40]!r} is not a brand id (letters and digits)")
        row = await published_brand(brand_uid)
        if row is None:
            raise NotFound(f"no brand {brand_uid!r} with published shows: see /brands")
        brand_uid = str(row["uid"])
        brand_id, brand_name = int(row["id"]), str(row["name"])
    year_text = (query.year or "").strip()
    if year_text and not YEAR.match(year_text):
        raise BadFilter(f"year {year_text[:20]!r} is not a year like 2025")
    kind_text = (query.kind or "").strip()
    if kind_text and kind_text not in KINDS:
        raise BadFilter(f"kind {kind_text[:20]!r} is unknown; use runway or street")
    expand = (query.all or "").strip()
    if expand and expand not in LONG_FACETS:
        raise BadFilter(f"all={expand[:20]!r} is no filter; use {', '.join(LONG_FACETS)}")
    tag = (query.tag or "").strip()
    if tag and tag not in (tags if tags is not None else shipped_vocabulary().names):
        raise BadFilter(f"unknown tag {tag[:64]!r}: see the tag vocabulary (docs/tags.md)")
    year = int(year_text) if year_text else 0
    named, yearless = await seasons_of_year(year) if year else ((), ())
    return ShowFilters(
        brand=brand_uid,
        brand_id=brand_id,
        brand_name=brand_name,
        season=_text("season", query.season),
        year=year,
        city=_text("city", query.city),
        kind=kind_text,
        tag=tag,
        year_seasons=named,
        yearless_seasons=yearless,
        expand=expand,
    )


async def seasons_of_year(year: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The published seasons whose name gives ``year``, and those giving none ("" included)."""
    names = {str(row["name"]) for row in await published_seasons()} | {""}
    named = tuple(sorted(n for n in names if season_year(n) == year))
    yearless = tuple(sorted(n for n in names if season_year(n) is None))
    return named, yearless


def parse_cursor(value: str | None, name: str = "before") -> int:
    """The article id that the cursor ``name`` (``before=``, ``after=``) names (0 when
    absent); BadFilter when malformed."""
    text = (value or "").strip()
    if not text:
        return 0
    if not CURSOR.match(text) or int(text) > MAX_ID:
        raise BadFilter(f"{name}={text[:20]!r} is not a show id")
    return int(text)
