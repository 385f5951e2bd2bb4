"""Migration 0004: foreign keys between articles, images and what hangs off images.

Existing rows are checked first (a clear one-line refusal naming them, nothing changed);
afterwards both engines refuse orphans and cascade an image's embeddings, failures and
neighbour rows with it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator

import asyncpg
import pytest

from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations, migrate_database
from rk.server.platform.db.migrations.m0004_foreign_keys import MigrationRefused
from rk.server.platform.db.piccolo_engines import engine_for_database

FK_ERRORS = (sqlite3.IntegrityError, asyncpg.ForeignKeyViolationError)


@pytest.fixture
async def before_0004(any_dsn: str) -> AsyncIterator[Database]:
    """A database with every migration before 0004 applied (as an older rk left it)."""
    db = await connect(any_dsn)
    engine = engine_for_database(db)
    await apply_migrations(engine, before="0004")
    try:
        yield db
    finally:
        await close(db)


async def seed(db: Database) -> None:
    """Article 1 with images 1 and 2, an embedding, a failure and neighbour rows."""
    for sql in (
        "INSERT INTO articles (id, source, show_key, kind) VALUES (1, 'vogue', 's', 'runway')",
        "INSERT INTO images (id, article_id, role, position, kind, key)"
        " VALUES (1, 1, 'look', 1, 'runway', 'k1'), (2, 1, 'look', 2, 'runway', 'k2')",
        "INSERT INTO image_embeddings (image_id, model, kind, dim, vector)"
        " VALUES (1, 'm', 'image', 1, x'00')",
        "INSERT INTO image_embedding_failures (image_id, model) VALUES (2, 'm')",
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (1, 'm', 2, 1, 0.5), (2, 'm', 1, 1, 0.5)",
    ):
        await db.execute(sql.replace("x'00'", "'\\x00'::bytea") if db.engine != "sqlite" else sql)


async def count(db: Database, table: str) -> int:
    return int(await db.value(f"SELECT COUNT(*) FROM {table}"))


async def test_orphans_refuse_the_migration_naming_them(before_0004: Database) -> None:
    db = before_0004
    await seed(db)
    await db.execute(
        "INSERT INTO images (id, article_id, role, position, kind, key)"
        " VALUES (7, 99, 'look', 1, 'runway', 'k7')"
    )
    await db.execute(
        "INSERT INTO image_embedding_failures (id, image_id, model) VALUES (9, 42, 'm')"
    )
    with pytest.raises(MigrationRefused) as refused:
        await migrate_database(db)
    message = str(refused.value)
    assert message == (
        "cannot add foreign keys (migration 0004): images id 7 refer to missing articles"
        " (article_id, 1 row); image_embedding_failures id 9 refer to missing images"
        " (image_id, 1 row); delete or fix those rows, then migrate again"
    )
    ids = [row[0] for row in await db.rows("SELECT id FROM rk_migrations ORDER BY id")]
    assert "0004_foreign_keys" not in ids

    await db.execute("DELETE FROM image_embedding_failures WHERE image_id = 42")
    await db.execute("DELETE FROM images WHERE id = 7")
    applied = await migrate_database(db)
    assert applied[0] == "0004_foreign_keys"
    assert await count(db, "images") == 2  # rows survive the SQLite rebuild


async def test_keys_refuse_orphans_and_cascade_from_images(before_0004: Database) -> None:
    db = before_0004
    await seed(db)
    await migrate_database(db)
    for sql in (
        "INSERT INTO images (id, article_id, role, position, kind, key)"
        " VALUES (50, 99, 'look', 1, 'runway', 'k')",
        "INSERT INTO image_embedding_failures (id, image_id, model) VALUES (50, 99, 'm')",
        "INSERT INTO image_neighbors (id, image_id, model, neighbor_id, rank, score)"
        " VALUES (50, 1, 'm', 99, 2, 0.1)",
    ):
        with pytest.raises(FK_ERRORS):
            await db.execute(sql)
    with pytest.raises(FK_ERRORS):  # articles are soft-deleted; a hard delete is refused
        await db.execute("DELETE FROM articles WHERE id = 1")

    await db.execute("DELETE FROM images WHERE id = 2")
    assert await count(db, "image_embedding_failures") == 0
    assert await count(db, "image_neighbors") == 0  # both ends cascade
    assert await count(db, "image_embeddings") == 1
    # the public change counter's triggers on images survived the rebuild
    version = await db.value("SELECT version FROM public_changes WHERE name = 'content'")
    await db.execute("UPDATE articles SET status = 'published' WHERE id = 1")
    await db.execute("UPDATE images SET position = 5 WHERE id = 1")
    later = await db.value("SELECT version FROM public_changes WHERE name = 'content'")
    assert later >= version + 2
