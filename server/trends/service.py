"""Trends computed from the counts: a tag's or a colour's share of looks per season, and the
tags and colours that rose or fell most between two seasons.

A share is looks with the tag or colour ÷ published looks of that season in the same scope
(designer, city, kind); seasons with no look in scope are left out. Seasons run oldest first
in the site's own order (``rk.server.site.dated_seasons``: the year in the name, then the
newest show), and names that fold to one slug count as one season, as ``/seasons`` shows them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from msgspec import Struct

from rk.server.colour import FACET_MIN_SHARE
from rk.server.site import dated_seasons
from rk.server.trends.query import BadTrend, CheckedQuery
from rk.server.trends.repository import (
    colour_looks,
    colours_in,
    season_looks,
    tag_looks,
    tags_in,
)

MOVERS = 10
"""Risers and fallers listed per kind of attribute."""


class SeasonRef(Struct, frozen=True, kw_only=True):
    """A season as trends name it: its slug (``/seasons/<slug>``) and its name."""

    slug: str
    name: str


class SeasonShare(Struct, frozen=True, kw_only=True):
    """One season's point: published looks in scope, those with the attribute, their share."""

    season: str
    slug: str
    looks: int
    matching: int
    share: float


class Trend(Struct, frozen=True, kw_only=True):
    """A tag's or a colour's share of looks, season by season, oldest first."""

    by: Literal["tag", "colour"]
    name: str
    points: list[SeasonShare]


class Move(Struct, frozen=True, kw_only=True):
    """How one tag or colour moved: its share in each season and the change (after − before)."""

    name: str
    before: float
    after: float
    change: float
    matching_before: int
    matching_after: int


class Moves(Struct, frozen=True, kw_only=True):
    """The biggest rises (largest change first) and falls (largest drop first)."""

    risers: list[Move]
    fallers: list[Move]


class Movers(Struct, frozen=True, kw_only=True):
    """Tags and colours compared between two seasons (looks: each season's denominator)."""

    before: SeasonRef
    after: SeasonRef
    looks_before: int
    looks_after: int
    tags: Moves
    colours: Moves


class Trends(Struct, frozen=True, kw_only=True):
    """The answer of ``/api/trends``: the seasons in scope, the trend asked for, the movers."""

    seasons: list[SeasonRef]
    trend: Trend | None
    movers: Movers | None


def share(part: int, whole: int) -> float:
    """``part / whole`` (0 for an empty season)."""
    return part / whole if whole else 0.0


async def season_order() -> list[tuple[SeasonRef, list[str]]]:
    """Every season with published shows, oldest first, with the names it stands for."""
    names: dict[str, list[str]] = defaultdict(list)
    first: dict[str, str] = {}
    for dated in await dated_seasons():
        slug = dated.season.slug
        names[slug].append(dated.season.name)
        first.setdefault(slug, dated.season.name)
    return [(SeasonRef(slug=slug, name=first[slug]), names[slug]) for slug in reversed(first)]


def folded(counts: dict[str, int], names: list[str]) -> int:
    """The count of a season that several names stand for."""
    return sum(counts.get(name, 0) for name in names)


async def trend_of(
    query: CheckedQuery, order: list[tuple[SeasonRef, list[str]]], looks: dict[str, int]
) -> Trend | None:
    """The share of looks with ``query``'s tag or colour per season in scope (``looks``: the
    looks per season name); None when it follows neither."""
    if not query.by:
        return None
    if query.by == "tag":
        matching = await tag_looks(query.name, query.scope)
    else:
        matching = await colour_looks(query.name, FACET_MIN_SHARE, query.scope)
    points = []
    for season, names in order:
        total = folded(looks, names)
        if total:
            found = folded(matching, names)
            points.append(
                SeasonShare(
                    season=season.name,
                    slug=season.slug,
                    looks=total,
                    matching=found,
                    share=share(found, total),
                )
            )
    return Trend(by=query.by, name=query.name, points=points)


def moves(
    found: list[dict[str, Any]], before: list[str], after: list[str], looks: tuple[int, int]
) -> Moves:
    """Risers and fallers from ``season, name, n`` rows of the two seasons' names; ``looks``
    are the two seasons' denominators."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in found:
        season = str(row["season"])
        side = 0 if season in before else 1 if season in after else -1
        if side >= 0:
            counts[str(row["name"])][side] += int(row["n"])
    listed = [
        Move(
            name=name,
            before=share(n[0], looks[0]),
            after=share(n[1], looks[1]),
            change=share(n[1], looks[1]) - share(n[0], looks[0]),
            matching_before=n[0],
            matching_after=n[1],
        )
        for name, n in sorted(counts.items())
    ]
    risers = sorted((m for m in listed if m.change > 0), key=lambda m: -m.change)
    fallers = sorted((m for m in listed if m.change < 0), key=lambda m: m.change)
    return Moves(risers=risers[:MOVERS], fallers=fallers[:MOVERS])


def compared(
    query: CheckedQuery, order: list[tuple[SeasonRef, list[str]]], looks: dict[str, int]
) -> tuple[int, int] | None:
    """The positions in ``order`` of the two seasons to compare: ``to`` (default the latest in
    scope) and ``from`` (default the season in scope before it); None when there are not two.
    BadTrend for a slug that names no season."""
    where = {season.slug: i for i, (season, _) in enumerate(order)}
    for label, slug in (("from", query.before), ("to", query.after)):
        if slug and slug not in where:
            raise BadTrend(f"unknown season {slug[:60]!r} for {label} (see /seasons)")
    in_scope = [i for i, (_, names) in enumerate(order) if folded(looks, names)]
    after = where[query.after] if query.after else (in_scope[-1] if in_scope else None)
    if query.before:
        before: int | None = where[query.before]
    else:
        before = next((i for i in reversed(in_scope) if after is not None and i < after), None)
    if before is None or after is None:
        return None
    if before == after:
        raise BadTrend("from and to must be two different seasons")
    return before, after


async def movers_of(
    query: CheckedQuery, order: list[tuple[SeasonRef, list[str]]], looks: dict[str, int]
) -> Movers | None:
    """Tags and colours compared between ``query``'s two seasons (``compared``); None when
    there are not two."""
    pair = compared(query, order, looks)
    if pair is None:
        return None
    (before, before_names), (after, after_names) = order[pair[0]], order[pair[1]]
    names = before_names + after_names
    counts = (folded(looks, before_names), folded(looks, after_names))
    colours = await colours_in(names, FACET_MIN_SHARE, query.scope)
    return Movers(
        before=before,
        after=after,
        looks_before=counts[0],
        looks_after=counts[1],
        tags=moves(await tags_in(names, query.scope), before_names, after_names, counts),
        colours=moves(colours, before_names, after_names, counts),
    )


async def trends(query: CheckedQuery) -> Trends:
    """Everything ``/trends`` shows for ``query``."""
    order = await season_order()
    looks = await season_looks(query.scope)
    return Trends(
        seasons=[season for season, names in order if folded(looks, names)],
        trend=await trend_of(query, order, looks),
        movers=await movers_of(query, order, looks),
    )
