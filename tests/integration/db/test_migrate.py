"""The one migration history: same schema on both engines, idempotent, safe when concurrent."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

import asyncpg
import pytest
from piccolo.table import Table

from rk.server.platform.db.database import open_database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import discover, migrate
from rk.server.platform.db.migrations.m0001_initial import INDEXES
from rk.server.platform.db.tables import (
    ALL_TABLES,
    Article,
    Image,
    ImageEmbedding,
    ImageEmbeddingFailure,
    ImageNeighbor,
)

DUPLICATE = (sqlite3.IntegrityError, asyncpg.UniqueViolationError)
DROPPED_INDEXES = {
    "image_neighbors_model_neighbor_idx",  # 0043
    "ingest_jobs_brand_id",  # 0045
    "ingest_jobs_claim_idx",  # 0074: partial indexes instead
}
NAMED_INDEXES = {sql.split(" INDEX ")[1].split()[0] for sql in INDEXES} - DROPPED_INDEXES


async def _rows(dsn: str, sql: str) -> list[dict[str, object]]:
    db = await open_database(dsn, pool_size=1, readers=1)
    try:
        return [dict(row) for row in await db.rows(sql)]
    finally:
        await db.close()


async def columns_of(dsn: str) -> dict[str, list[str]]:
    """Every table of the database with its column names in order (history table aside)."""
    engine = dsn
    if dsn.startswith("sqlite"):
        names = await _rows(
            engine,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
        tables = {}
        for row in names:
            info = await _rows(engine, f'PRAGMA table_info("{row["name"]}")')
            tables[str(row["name"])] = [str(col["name"]) for col in info]
    else:
        rows = await _rows(
            engine,
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position",
        )
        tables = {}
        for row in rows:
            tables.setdefault(str(row["table_name"]), []).append(str(row["column_name"]))
    tables.pop("rk_migrations")
    return tables


async def index_names(dsn: str) -> set[str]:
    """Names of the explicitly created indexes (not those behind PRIMARY KEY / UNIQUE)."""
    engine = dsn
    if dsn.startswith("sqlite"):
        rows = await _rows(engine, "SELECT name FROM sqlite_master WHERE type = 'index'")
        names = {str(row["name"]) for row in rows}
        return {name for name in names if not name.startswith("sqlite_autoindex")}
    rows = await _rows(
        engine,
        "SELECT indexname FROM pg_indexes AS i WHERE schemaname = 'public'"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conname = i.indexname)",
    )
    return {str(row["indexname"]) for row in rows}


def declared_columns() -> dict[str, list[str]]:
    """What ``tables.py`` declares; the migrations must produce exactly this."""
    return {
        table._meta.tablename: [col._meta.db_column_name for col in table._meta.columns]
        for table in ALL_TABLES
    }


async def test_both_engines_get_the_schema_tables_py_declares(sqlite_dsn: str, pg_dsn: str) -> None:
    history = [migration.id for migration in discover()]
    assert await migrate(sqlite_dsn) == history
    assert await migrate(pg_dsn) == history
    on_sqlite, on_pg = await columns_of(sqlite_dsn), await columns_of(pg_dsn)
    assert on_sqlite == on_pg == declared_columns()
    sqlite_indexes = await index_names(sqlite_dsn)
    assert sqlite_indexes == await index_names(pg_dsn)
    assert sqlite_indexes >= NAMED_INDEXES | {"images_key", "ingest_jobs_brand_id_idx"}
    assert not sqlite_indexes & DROPPED_INDEXES


async def test_second_run_applies_nothing(any_dsn: str) -> None:
    first = await migrate(any_dsn)
    assert first == [migration.id for migration in discover()]
    assert await migrate(any_dsn) == []
    rows = await _rows(any_dsn, "SELECT id FROM rk_migrations ORDER BY id")
    assert [row["id"] for row in rows] == first


def _article(show_key: str) -> Article:
    return Article(source="vogue", show_key=show_key, kind="runway")


async def _three_images() -> None:
    """An article with images 1, 2 and 3, which the rows below refer to (foreign keys)."""
    (article,) = await Article.insert(_article("parent"))
    await Image.insert(
        *(
            Image(article_id=article["id"], role="look", position=n, kind="runway", key=f"k{n}")
            for n in (1, 2, 3)
        )
    )


UNIQUE_CASES: dict[str, tuple[Callable[[], Table], Callable[[], Table]]] = {
    "article (source, show_key)": (
        lambda: _article("spring-2025/dior"),
        lambda: _article("spring-2025/dior"),
    ),
    "embedding (image_id, model)": (
        lambda: ImageEmbedding(image_id=1, model="m", kind="image", dim=1, vector=b"a"),
        lambda: ImageEmbedding(image_id=1, model="m", kind="image", dim=1, vector=b"b"),
    ),
    "embedding failure (image_id, model)": (
        lambda: ImageEmbeddingFailure(image_id=1, model="m", failures=1),
        lambda: ImageEmbeddingFailure(image_id=1, model="m", failures=2),
    ),
    "neighbor (model, image_id, rank)": (
        lambda: ImageNeighbor(image_id=1, model="m", neighbor_id=2, rank=0, score=0.9),
        lambda: ImageNeighbor(image_id=1, model="m", neighbor_id=3, rank=0, score=0.8),
    ),
}


@pytest.mark.parametrize("case", list(UNIQUE_CASES))
async def test_unique_constraints_reject_duplicates(any_dsn: str, case: str) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        await _three_images()
        first, duplicate = UNIQUE_CASES[case]
        row = first()
        table = type(row)
        before = await table.count()
        await table.insert(row)
        with pytest.raises(DUPLICATE):
            await table.insert(duplicate())
        assert await table.count() == before + 1
    finally:
        await close(engine)


async def test_unique_constraints_allow_distinct_keys(any_dsn: str) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        await _three_images()
        await Article.insert(
            _article("a"), _article("b"), Article(source="other", show_key="a", kind="runway")
        )
        await ImageNeighbor.insert(
            ImageNeighbor(image_id=1, model="m", neighbor_id=2, rank=0, score=0.9),
            ImageNeighbor(image_id=1, model="m", neighbor_id=3, rank=1, score=0.8),
            ImageNeighbor(image_id=1, model="n", neighbor_id=2, rank=0, score=0.9),
        )
        assert await Article.count() == 4
        assert await ImageNeighbor.count() == 3
    finally:
        await close(engine)


async def test_concurrent_migrations_apply_once(any_dsn: str) -> None:
    results = await asyncio.gather(*(migrate(any_dsn) for _ in range(4)))
    history = [migration.id for migration in discover()]
    # each runner applies one migration per lock turn: together, each id exactly once
    assert sorted(mid for applied in results for mid in applied) == history
    assert await columns_of(any_dsn) == declared_columns()
    rows = await _rows(any_dsn, "SELECT COUNT(*) AS n FROM rk_migrations")
    assert rows[0]["n"] == len(history)
