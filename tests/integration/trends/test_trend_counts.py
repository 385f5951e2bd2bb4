"""Trend counts over HTTP equal a fresh ``GROUP BY`` after publishes, unpublishes and retags,
on SQLite and PostgreSQL (issue 30); seasons run oldest first; the share's denominator is
the season's published looks in the same scope.

The reference counts are written here independently of ``rk.server.trends.repository``
(``EXISTS`` instead of joins), straight from the tables.
"""

from __future__ import annotations

from typing import Any

import pytest

from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import ImageColour, ImageTag
from tests.integration.public.archive import set_status
from tests.integration.server.helpers import Backend
from tests.integration.trends.archive import (
    FW24,
    FW25,
    SLUGS,
    SS25,
    TrendArchive,
    add_palette,
    add_tag,
)

PUBLISHED_LOOKS = (
    "FROM images i, articles a WHERE a.id = i.article_id AND a.status = 'published'"
    " AND a.deleted_at = 0 AND i.role = 'look' AND a.season <> ''"
)


async def fresh_counts(by: str, name: str, kind: str = "") -> dict[str, tuple[int, int]]:
    """``season → (looks, looks with it)`` by a fresh GROUP BY over the tables."""
    only = " AND a.kind = {}" if kind else ""
    extra = [kind] if kind else []
    looks = await rows(
        f"SELECT a.season, COUNT(*) AS n {PUBLISHED_LOOKS}{only} GROUP BY a.season", *extra
    )
    if by == "tag":
        has = (
            "EXISTS (SELECT 1 FROM image_tags t WHERE t.image_id = i.id AND t.tag = {}"
            " AND t.state <> 'removed')"
        )
    else:
        has = (
            "EXISTS (SELECT 1 FROM image_colours c WHERE c.image_id = i.id AND c.name = {}"
            " AND c.share >= 0.2)"
        )
    matching = await rows(
        f"SELECT a.season, COUNT(*) AS n {PUBLISHED_LOOKS} AND {has}{only} GROUP BY a.season",
        name,
        *extra,
    )
    found = {str(r["season"]): int(r["n"]) for r in matching}
    return {str(r["season"]): (int(r["n"]), found.get(str(r["season"]), 0)) for r in looks}


async def served(site: Backend, by: str, name: str, kind: str = "") -> dict[str, Any]:
    """``/api/trends`` for one tag or colour (200 expected)."""
    params = {by: name, **({"kind": kind} if kind else {})}
    answer = await site.client.get("/api/trends", params=params)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def check_exact(site: Backend, by: str, name: str, kind: str = "") -> None:
    """The served points are the fresh counts, in season order, with share = with ÷ looks."""
    fresh = await fresh_counts(by, name, kind)
    body = await served(site, by, name, kind)
    points = body["trend"]["points"]
    assert {p["season"]: (p["looks"], p["matching"]) for p in points} == fresh
    for p in points:
        assert p["share"] == pytest.approx(p["matching"] / p["looks"])
    order = [FW24, SS25, FW25]
    assert [p["season"] for p in points] == [s for s in order if s in fresh]
    assert all(p["slug"] == SLUGS[p["season"]] for p in points)


async def test_counts_equal_a_fresh_group_by_after_publish_unpublish_and_retag(
    site: Backend, trend_archive: TrendArchive
) -> None:
    body = await served(site, "tag", "trench coat")
    assert [(p["season"], p["looks"], p["matching"]) for p in body["trend"]["points"]] == [
        (FW24, 4, 2),
        (SS25, 8, 1),
        (FW25, 4, 3),
    ], "the detail, the pending show and removed rows never count"
    follow = [("tag", "trench coat"), ("tag", "sheer"), ("tag", "tweed"), ("colour", "oxblood")]
    follow += [("colour", "camel")]
    for by, name in follow:
        await check_exact(site, by, name)
        await check_exact(site, by, name, kind="runway")

    await set_status(trend_archive.shows["pending-fw25"], "published")
    after_publish = await served(site, "tag", "trench coat")
    assert after_publish["trend"]["points"][-1]["matching"] == 7
    for by, name in follow:
        await check_exact(site, by, name)

    await set_status(trend_archive.shows["aurele-ss25"], "rejected")
    for by, name in follow:
        await check_exact(site, by, name)
        await check_exact(site, by, name, kind="street")

    image = trend_archive.image("acne-fw25", 1)
    await ImageTag.update({ImageTag.state: "removed"}).where(
        (ImageTag.image_id == image) & (ImageTag.tag == "trench coat")
    )
    await add_tag(trend_archive.image("acne-fw25", 4), "trench coat", "confirmed")
    await ImageTag.delete().where(ImageTag.tag == "tweed")
    await add_tag(trend_archive.image("acne-fw24", 4), "tweed")
    await ImageColour.delete().where(ImageColour.image_id == trend_archive.image("acne-fw25", 2))
    await add_palette(trend_archive.image("acne-fw24", 1), [("camel", 1.0)])
    for by, name in follow:
        await check_exact(site, by, name)
    retagged = await served(site, "tag", "tweed")
    assert [(p["season"], p["matching"]) for p in retagged["trend"]["points"]] == [
        (FW24, 1),
        (SS25, 0),
        (FW25, 0),
    ], "Spring 2025 keeps its street looks after the runway show is rejected"


async def test_filters_narrow_looks_and_shares(site: Backend, trend_archive: TrendArchive) -> None:
    street = await served(site, "tag", "sheer", kind="street")
    assert [(p["season"], p["looks"], p["matching"]) for p in street["trend"]["points"]] == [
        (SS25, 3, 1)
    ]
    acne = (
        await site.client.get(
            "/api/trends", params={"tag": "trench coat", "designer": "acne studios"}
        )
    ).json()
    assert [
        (p["season"], p["looks"], p["matching"], p["share"]) for p in acne["trend"]["points"]
    ] == [
        (FW24, 4, 2, 0.5),
        (FW25, 4, 3, 0.75),
    ]
    milan = (
        await site.client.get("/api/trends", params={"colour": "oxblood", "city": "milan"})
    ).json()
    assert [(p["season"], p["looks"], p["matching"]) for p in milan["trend"]["points"]] == [
        (SS25, 5, 2)
    ]
    assert [s["slug"] for s in milan["seasons"]] == [SLUGS[SS25]]
    assert milan["movers"] is None, "one season in scope: nothing to compare"
