"""Migrations 0035 and 0036 on a database with vectors: stamps continue from the highest one
and never go back when the newest vectors are deleted; every deletion is stamped too."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations, migrate_database
from rk.server.platform.db.piccolo_engines import engine_for_database


@pytest.fixture
async def before_0035(any_dsn: str) -> AsyncIterator[Database]:
    """A database with every migration before 0035 applied (as an older rk left it)."""
    db = await connect(any_dsn)
    engine = engine_for_database(db)
    await apply_migrations(engine, before="0035")
    try:
        yield db
    finally:
        await close(db)


async def add_vectors(db: Database, images: range) -> None:
    for image in images:
        await db.execute(
            "INSERT INTO images (id, article_id, role, position, kind, key)"
            f" VALUES ({image}, 1, 'look', {image}, 'runway', 'k{image}')"
        )
        await db.execute(
            "INSERT INTO image_embeddings (image_id, model, kind, dim, vector)"
            f" VALUES ({image}, 'm', 'runway', 1, '0000')"
        )


async def stamps(db: Database) -> dict[int, int]:
    rows = await db.rows("SELECT image_id, change_seq FROM image_embeddings")
    return {int(row["image_id"]): int(row["change_seq"]) for row in rows}


async def test_stamps_only_grow_across_the_upgrade_and_deletes(before_0035: Database) -> None:
    db = before_0035
    await db.execute(
        "INSERT INTO articles (id, source, show_key, kind) VALUES (1, 'v', 's', 'runway')"
    )
    await add_vectors(db, range(1, 6))
    highest = max((await stamps(db)).values())

    assert [m[:4] for m in await migrate_database(db)][:2] == ["0035", "0036"]
    await add_vectors(db, range(6, 8))
    after = await stamps(db)
    assert min(after[6], after[7]) > highest  # 0030's MAX + 1 would hand out old stamps
    top = max(after.values())

    await db.execute("DELETE FROM images WHERE id IN (6, 7)")  # the newest vectors
    deletions = await db.rows(
        "SELECT image_id, model, change_seq FROM vector_deletions ORDER BY change_seq"
    )
    assert [(int(r["image_id"]), r["model"]) for r in deletions] == [(6, "m"), (7, "m")]
    assert int(deletions[0]["change_seq"]) > top
    await add_vectors(db, range(8, 9))
    assert (await stamps(db))[8] > int(deletions[-1]["change_seq"])
