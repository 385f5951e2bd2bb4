"""The trends' SQL: published looks per season, and those with a tag or a colour, by
``GROUP BY`` at request time, so every count is exact under publishes, unpublishes and retags.

A look is an image with role ``look`` of a live (published, not deleted) article whose season
has a name. A tag counts while its row's state is ``auto`` or ``confirmed`` (never
``removed``); a colour counts when it covers at least ``min_share`` of the garment, as in the
colour facet. Reads go through ``image_tags_tag_state``, ``image_colours_name_share`` and the
articles' public indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from rk.server.platform.db.sql_rows import LIVE, marks, rows

LOOKS = (
    "FROM images i JOIN articles a ON a.id = i.article_id"
    f" WHERE {LIVE} AND i.role = 'look' AND a.season <> ''"
)
"""The published looks of named seasons (``a`` the article, ``i`` the image)."""
COUNTED_TAG = "t.state IN ('auto', 'confirmed')"
"""A tag row that counts: the model's or a moderator's, not one a moderator removed."""


class Scope(Struct, frozen=True, kw_only=True):
    """Which looks count: one kind (``runway``, ``street``), one brand, one city ("" / 0: all)."""

    kind: str = ""
    brand_id: int = 0
    city: str = ""


def _scoped(scope: Scope) -> tuple[str, list[Any]]:
    """The ``AND …`` conditions of ``scope`` and their values."""
    sql, args = "", list[Any]()
    if scope.kind:
        sql += " AND a.kind = {}"
        args.append(scope.kind)
    if scope.brand_id:
        sql += " AND a.brand_id = {}"
        args.append(scope.brand_id)
    if scope.city:
        sql += " AND lower(a.city) = lower({})"
        args.append(scope.city)
    return sql, args


def _by_season(found: list[dict[str, Any]]) -> dict[str, int]:
    """``season, n`` rows as a mapping."""
    return {str(row["season"]): int(row["n"]) for row in found}


async def season_looks(scope: Scope) -> dict[str, int]:
    """Published looks per season name in ``scope`` (the shares' denominator)."""
    where, args = _scoped(scope)
    sql = f"SELECT a.season, COUNT(*) AS n {LOOKS}{where} GROUP BY a.season"
    return _by_season(await rows(sql, *args))


async def tag_looks(tag: str, scope: Scope) -> dict[str, int]:
    """Published looks per season name in ``scope`` that carry ``tag``."""
    where, args = _scoped(scope)
    sql = (
        "SELECT a.season, COUNT(DISTINCT i.id) AS n FROM image_tags t"
        " JOIN images i ON i.id = t.image_id JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE} AND i.role = 'look' AND a.season <> ''"
        f" AND t.tag = {{}} AND {COUNTED_TAG}{where} GROUP BY a.season"
    )
    return _by_season(await rows(sql, tag, *args))


async def colour_looks(name: str, min_share: float, scope: Scope) -> dict[str, int]:
    """Published looks per season name in ``scope`` with colour ``name`` over ``min_share``."""
    where, args = _scoped(scope)
    sql = (
        "SELECT a.season, COUNT(DISTINCT i.id) AS n FROM image_colours c"
        " JOIN images i ON i.id = c.image_id JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE} AND i.role = 'look' AND a.season <> ''"
        f" AND c.name = {{}} AND c.share >= {{}}{where} GROUP BY a.season"
    )
    return _by_season(await rows(sql, name, min_share, *args))


async def tags_in(seasons: Sequence[str], scope: Scope) -> list[dict[str, Any]]:
    """``season, name, n``: looks per counted tag in each of ``seasons`` (names) in ``scope``."""
    where, args = _scoped(scope)
    sql = (
        "SELECT a.season, t.tag AS name, COUNT(DISTINCT i.id) AS n FROM image_tags t"
        " JOIN images i ON i.id = t.image_id JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE} AND i.role = 'look' AND {COUNTED_TAG}"
        f" AND a.season IN ({marks(len(seasons))}){where} GROUP BY a.season, t.tag"
    )
    return await rows(sql, *seasons, *args) if seasons else []


async def colours_in(
    seasons: Sequence[str], min_share: float, scope: Scope
) -> list[dict[str, Any]]:
    """``season, name, n``: looks per colour name over ``min_share`` in each of ``seasons``."""
    where, args = _scoped(scope)
    sql = (
        "SELECT a.season, c.name, COUNT(DISTINCT i.id) AS n FROM image_colours c"
        " JOIN images i ON i.id = c.image_id JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE} AND i.role = 'look' AND c.share >= {{}}"
        f" AND a.season IN ({marks(len(seasons))}){where} GROUP BY a.season, c.name"
    )
    return await rows(sql, min_share, *seasons, *args) if seasons else []


async def tag_in_rows(tag: str) -> bool:
    """Whether any ``image_tags`` row, in any state, has ``tag``."""
    return bool(await rows("SELECT 1 AS one FROM image_tags WHERE tag = {} LIMIT 1", tag))


async def brand_named(designer: str) -> tuple[int, str] | None:
    """``(id, name)`` of the brand whose uid or name (any case) is ``designer``; else None."""
    found = await rows(
        "SELECT id, name FROM brands WHERE uid = {} OR lower(name) = lower({})"
        " ORDER BY CASE WHEN uid = {} THEN 0 ELSE 1 END LIMIT 1",
        designer,
        designer,
        designer,
    )
    return (int(found[0]["id"]), str(found[0]["name"])) if found else None


async def published_city(city: str) -> str | None:
    """The city as published shows spell it when one is in ``city`` (any case); else None."""
    found = await rows(
        f"SELECT a.city FROM articles a WHERE {LIVE} AND lower(a.city) = lower({{}})"
        " ORDER BY a.city LIMIT 1",
        city,
    )
    return str(found[0]["city"]) if found else None
