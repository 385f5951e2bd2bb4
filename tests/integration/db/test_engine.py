"""DSNs become databases; bound tables round-trip rows (bytes included) on both engines."""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.errors import ConfigError
from rk.server.platform.db.database import Database, open_database
from rk.server.platform.db.dsn import engine_of
from rk.server.platform.db.engine import redact_dsn, sqlite_path
from rk.server.platform.db.piccolo_engines import DatabasePostgresEngine, DatabaseSQLiteEngine
from rk.server.platform.db.tables import ALL_TABLES, Article, Brand, Image, ImageEmbedding
from tests.support.databases import migrated


@pytest.fixture
async def bound(any_dsn: str) -> AsyncIterator[Database]:
    """A migrated database on each engine, with rk's tables bound to it."""
    async with migrated(any_dsn) as db:
        yield db


async def test_bind_points_every_table_at_one_engine_over_the_database(bound: Database) -> None:
    engine = ALL_TABLES[0]._meta.db
    assert all(table._meta.db is engine for table in ALL_TABLES)
    assert engine.db is bound  # type: ignore[attr-defined]
    kind = DatabaseSQLiteEngine if bound.engine == "sqlite" else DatabasePostgresEngine
    assert type(engine) is kind


async def test_brand_round_trip(bound: Database) -> None:
    await Brand.insert(Brand(uid="b1", name="Maison Margiela", slugs='{"vogue": "mm"}'))
    rows = await Brand.select(Brand.uid, Brand.name, Brand.slugs).where(Brand.uid == "b1")
    assert rows == [{"uid": "b1", "name": "Maison Margiela", "slugs": '{"vogue": "mm"}'}]


async def test_embedding_bytes_round_trip(bound: Database) -> None:
    vector = struct.pack("<4f", 0.5, -1.25, 3.0, 1e-8) + bytes(range(256))
    (article,) = await Article.insert(Article(source="vogue", show_key="s", kind="runway"))
    (image,) = await Image.insert(
        Image(article_id=article["id"], role="look", position=1, kind="runway", key="k")
    )
    await ImageEmbedding.insert(
        ImageEmbedding(image_id=image["id"], model="clip", kind="image", dim=4, vector=vector)
    )
    row = await ImageEmbedding.select(ImageEmbedding.vector).first()
    assert row is not None
    assert type(row["vector"]) is bytes
    assert row["vector"] == vector


async def test_sqlite_database_creates_dir_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "rk.sqlite3"
    db = await open_database(f"sqlite:///{path}")
    await db.close()
    assert db.engine == "sqlite"
    assert path.is_file()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_sqlite_relative_path_resolves_against_cwd(tmp_path: Path) -> None:
    assert sqlite_path("sqlite:///data/rk.sqlite3") == tmp_path / "data" / "rk.sqlite3"
    assert sqlite_path(f"sqlite:///{tmp_path}/a.sqlite3") == tmp_path / "a.sqlite3"


def test_dsn_names_its_engine() -> None:
    assert engine_of("postgresql://rk:pw@127.0.0.1:5432/rk") == "postgresql"
    assert engine_of("postgres://rk@db.example/rk") == "postgresql"
    assert engine_of("postgresql+asyncpg://rk@db.example/rk") == "postgresql"
    assert engine_of("sqlite:///x.sqlite3") == "sqlite"


@pytest.mark.parametrize(
    ("dsn", "expected"),
    [
        ("mysql://root:hunter2@db/rk", "scheme 'mysql' is not supported"),
        ("hunter2-not-a-dsn", "has no scheme"),
        ("sqlite:///:memory:", "needs a file path"),
        ("sqlite://", "must start with sqlite:///"),
        ("postgresql://u:hunter2@host:notaport/rk", "bad PostgreSQL DSN"),
        ("postgresql://u:hunter2@host:5432", "names no database"),
    ],
)
async def test_bad_dsn_is_one_line_config_error_without_password(dsn: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        await open_database(dsn)
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message
    assert "hunter2" not in message


def test_redact_dsn() -> None:
    assert redact_dsn("postgresql://rk:s3cr3t@h:5432/db") == "postgresql://rk:***@h:5432/db"
    assert redact_dsn("postgresql://rk@h/db") == "postgresql://rk@h/db"
    assert redact_dsn("sqlite:////tmp/x.sqlite3") == "sqlite:////tmp/x.sqlite3"
