"""Migration 0032: the kept filter counts equal a fresh GROUP BY after every kind of write.

Articles are written with plain SQL, as any tool could: inserted pending or published (one
row and several per statement), published, unpublished, soft- and hard-deleted, their
counted columns edited. On PostgreSQL concurrent writers publish and unpublish articles sharing
facet values (their own articles, in opposite orders).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations, migrate
from rk.server.platform.db.migrations.m0032_public_facet_counts import FACETS
from rk.server.platform.db.piccolo_engines import engine_for_database
from rk.server.site.brands import brand_by_uid, brand_index
from rk.server.site.facets import facets
from rk.server.site.show_filters import ShowFilters

LIVE = "a.status = 'published' AND a.deleted_at = 0"


async def kept(db: Database) -> dict[tuple[str, str], int]:
    """The kept counts, zeros left out."""
    found = await db.rows("SELECT facet, value, n FROM public_facet_counts WHERE n <> 0")
    return {(str(r["facet"]), str(r["value"])): int(r["n"]) for r in found}


async def fresh(db: Database) -> dict[tuple[str, str], int]:
    """The same counts by GROUP BY over the published, live articles."""
    out: dict[tuple[str, str], int] = {}
    for facet, expr in FACETS.items():
        value = expr.format(r="a")
        for r in await db.rows(
            f"SELECT {value} AS value, COUNT(*) AS n FROM articles a WHERE {LIVE} GROUP BY 1"
        ):
            out[(facet, str(r["value"]))] = int(r["n"])
    return out


async def assert_exact(db: Database) -> None:
    assert await kept(db) == await fresh(db)


def article(n: int, status: str, brand: int, season: str, city: str, date: str) -> str:
    return (
        f"('vogue', 's/{n}', 'runway', {brand}, 'Show {n}', '{season}', '{city}', '{date}',"
        f" '{status}')"
    )


INSERT = (
    "INSERT INTO articles (source, show_key, kind, brand_id, title, season, city, date, status)"
    " VALUES "
)


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """A database with two brands and articles written before migration 0032 (backfilled)."""
    database = await connect(any_dsn)
    engine = engine_for_database(database)
    await apply_migrations(engine, before="0032")
    await database.execute(
        "INSERT INTO brands (id, uid, name) VALUES (1, 'b1', 'Alaia'), (2, 'b2', 'Dior')"
    )
    await database.execute(
        INSERT
        + ", ".join(
            [
                article(1, "published", 1, "Spring 2024", "Paris", "2024-03-01"),
                article(2, "published", 2, "Spring 2024", "Milan", "2024-03-02"),
                article(3, "pending", 1, "Fall 2023", "Paris", "2023-09-01"),
                article(4, "rejected", 2, "Fall 2023", "London", "2023-09-02"),
            ]
        )
    )
    try:
        await migrate(any_dsn)
        yield database
    finally:
        await close(database)


async def test_counts_stay_exact_through_every_write(db: Database) -> None:
    assert (await kept(db))[("total", "")] == 2
    await assert_exact(db)
    await db.execute(INSERT + article(5, "published", 1, "Fall 2023", "Tokyo", "2023-10-01"))
    await db.execute(INSERT + article(6, "pending", 2, "Fall 2023", "Tokyo", "2023-10-02"))
    await db.execute(
        INSERT
        + ", ".join(
            article(n, "published" if n % 2 else "pending", 1 + n % 2, "Fall 2025", "Seoul", "")
            for n in range(7, 17)
        )
    )
    await assert_exact(db)
    assert (await kept(db))[("total", "")] == 8
    await db.execute("UPDATE articles SET status = 'published' WHERE show_key IN ('s/3', 's/6')")
    await assert_exact(db)
    await db.execute("UPDATE articles SET status = 'rejected' WHERE show_key = 's/1'")
    await assert_exact(db)
    await db.execute("UPDATE articles SET deleted_at = 5 WHERE show_key = 's/2'")
    await assert_exact(db)
    await db.execute(
        "UPDATE articles SET season = 'Resort 2026', city = 'Rome', date = '2026-05-05',"
        " brand_id = 2, kind = 'street' WHERE show_key IN ('s/5', 's/4')"
    )
    await assert_exact(db)
    await db.execute("UPDATE articles SET title = 'Renamed' WHERE show_key = 's/5'")
    await db.execute("DELETE FROM articles WHERE show_key IN ('s/5', 's/7', 's/8')")
    await assert_exact(db)
    await db.execute("UPDATE articles SET status = 'published', deleted_at = 0")
    await assert_exact(db)
    await db.execute("DELETE FROM articles")
    assert await kept(db) == {}


async def test_concurrent_writers_keep_counts_exact_without_deadlock(pg_dsn: str) -> None:
    await migrate(pg_dsn)
    dbs = [await connect(pg_dsn) for _ in range(4)]
    try:
        await dbs[0].execute(
            "INSERT INTO brands (id, uid, name) VALUES (1, 'b1', 'Alaia'), (2, 'b2', 'Dior')"
        )
        await dbs[0].execute(
            INSERT
            + ", ".join(
                article(
                    n, "pending", 1 + (n - 1) // 5 % 2, f"S{n % 3}", f"C{n % 4}", f"2024-01-{n:02d}"
                )
                for n in range(1, 21)
            )
        )

        async def writer(w: int) -> None:
            """Publish and unpublish its own five articles, whose values others share."""
            own = [5 * w + k for k in range(1, 6)]
            for i in range(30):
                status = "published" if i % 2 == 0 else "pending"
                async with dbs[w].transaction() as tx:
                    for n in own if (w + i) % 2 else own[::-1]:
                        await tx.execute(
                            f"UPDATE articles SET status = '{status}' WHERE show_key = 's/{n}'"
                        )
                    new = article(100 * (w + 1) + i, status, 1 + w % 2, "New", "Oslo", "2025-01-01")
                    await tx.execute(INSERT + new)
                    await tx.execute(f"DELETE FROM articles WHERE show_key = 's/{own[i % 5]}'")

        await asyncio.gather(*(writer(w) for w in range(4)))
        await assert_exact(dbs[0])
    finally:
        for db in dbs:
            await close(db)


async def test_sidebar_and_brand_index_read_the_kept_counts(db: Database) -> None:
    await db.execute("DELETE FROM articles")
    await db.execute("UPDATE brands SET uid = old_uid")  # 0050 re-encoded b1 and b2
    await db.execute(
        "INSERT INTO brands (id, uid, name) VALUES "
        + ", ".join(f"({b}, 'b{b}', 'Brand {b:02d}')" for b in range(3, 15))
    )
    shows = [(b, k) for b in range(1, 15) for k in range(b)]
    await db.execute(
        INSERT
        + ", ".join(
            article(100 * b + k, "published", b, f"S{k}", "Paris", f"20{10 + b}-01-01")
            for b, k in shows
        )
    )
    sidebar = await facets(ShowFilters())
    assert [v.value for v in sidebar.brand] == [f"b{b}" for b in range(14, 2, -1)]
    assert sidebar.total == len(shows)
    assert [(v.value, v.count) for v in sidebar.year][:2] == [("2024", 14), ("2023", 13)]
    chosen = await facets(ShowFilters(brand="b1", brand_id=1))
    assert [(v.value, v.count) for v in chosen.brand][-1] == ("b1", 1)
    assert len(chosen.brand) == 13
    index = await brand_index()
    assert index.total == 14
    assert {b.uid: b.shows for letter in index.letters for b in letter.brands} == {
        f"b{b}": b for b in range(1, 15)
    }
    assert (await brand_by_uid("b2")).shows == 2
