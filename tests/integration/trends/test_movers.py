"""Risers and fallers between two seasons on the known archive (issue 30), on SQLite and
PostgreSQL: the default pair is the two latest seasons in scope, ``from``/``to`` choose
others, and filters change both the counts and the denominators."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.server.helpers import Backend
from tests.integration.trends.archive import FW24, FW25, SLUGS, SS25, TrendArchive


def listed(moves: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """``(name, change)`` of each move, in order."""
    return [(m["name"], m["change"]) for m in moves]


async def movers(site: Backend, **params: str) -> dict[str, Any]:
    """The ``movers`` of ``/api/trends`` with ``params`` (200 expected)."""
    answer = await site.client.get("/api/trends", params=params)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()["movers"]
    return found


async def test_the_default_compares_the_two_latest_seasons(
    site: Backend, trend_archive: TrendArchive
) -> None:
    found = await movers(site)
    assert (found["before"]["name"], found["after"]["name"]) == (SS25, FW25)
    assert (found["looks_before"], found["looks_after"]) == (8, 4)
    assert listed(found["tags"]["risers"]) == [
        ("trench coat", pytest.approx(3 / 4 - 1 / 8)),
        ("tweed", pytest.approx(1 / 4 - 1 / 8)),
    ]
    assert listed(found["tags"]["fallers"]) == [("sheer", pytest.approx(1 / 4 - 4 / 8))]
    assert listed(found["colours"]["risers"]) == [
        ("black", pytest.approx(2 / 4)),
        ("camel", pytest.approx(2 / 4 - 1 / 8)),
        ("ecru", pytest.approx(1 / 4 - 1 / 8)),
        ("navy", pytest.approx(1 / 4 - 1 / 8)),
    ], "ties by name; ecru at exactly the facet's 0.2 counts"
    assert listed(found["colours"]["fallers"]) == [("oxblood", pytest.approx(-2 / 8))]
    trench = found["tags"]["risers"][0]
    assert (trench["matching_before"], trench["matching_after"]) == (1, 3)
    assert trench["before"] == pytest.approx(1 / 8)
    assert trench["after"] == pytest.approx(3 / 4)


async def test_chosen_seasons_and_filters(site: Backend, trend_archive: TrendArchive) -> None:
    found = await movers(site, **{"from": SLUGS[FW24], "to": SLUGS[SS25]})
    assert (found["before"]["slug"], found["after"]["slug"]) == (SLUGS[FW24], SLUGS[SS25])
    assert listed(found["tags"]["risers"]) == [
        ("sheer", pytest.approx(4 / 8 - 1 / 4)),
        ("tweed", pytest.approx(1 / 8)),
    ]
    assert listed(found["tags"]["fallers"]) == [("trench coat", pytest.approx(1 / 8 - 2 / 4))]

    runway = await movers(site, kind="runway")
    assert (runway["looks_before"], runway["looks_after"]) == (5, 4)
    assert listed(runway["tags"]["risers"]) == [
        ("trench coat", pytest.approx(3 / 4 - 1 / 5)),
        ("tweed", pytest.approx(1 / 4 - 1 / 5)),
    ]
    assert listed(runway["tags"]["fallers"]) == [("sheer", pytest.approx(1 / 4 - 3 / 5))]

    acne = await movers(site, designer="Acne Studios")
    assert (acne["before"]["name"], acne["after"]["name"]) == (FW24, FW25)
    assert listed(acne["tags"]["risers"]) == [
        ("trench coat", pytest.approx(0.25)),
        ("tweed", pytest.approx(0.25)),
    ]
    assert acne["tags"]["fallers"] == [], "sheer held at 1 of 4 looks"

    backwards = await movers(site, **{"from": SLUGS[FW25], "to": SLUGS[FW24]})
    assert listed(backwards["tags"]["fallers"])[0] == ("trench coat", pytest.approx(0.5 - 0.75))
