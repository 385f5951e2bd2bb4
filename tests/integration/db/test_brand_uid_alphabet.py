"""Migration 0050: brand uids in an alphabet of the instance's own; old uids still resolve.

Issue 27 row 9: uids were sqids of the row id in the default alphabet, so encoding 1, 2,
3, … listed every brand in order. Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqids.constants import DEFAULT_ALPHABET

from rk.core.uids import brand_uid
from rk.server.brands.lookup import brand_id_for_uid, brand_info
from rk.server.brands.management import add_brand
from rk.server.brands.uids import instance_alphabet
from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations, migrate
from rk.server.platform.db.piccolo_engines import engine_for_database

OLD = {1: brand_uid(1), 2: brand_uid(2), 3: "legacy3"}


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """A database with three brands written before migration 0050, then migrated."""
    database = await connect(any_dsn)
    await apply_migrations(engine_for_database(database), before="0050")
    values = ", ".join(f"('{uid}', 'Brand {n}')" for n, uid in OLD.items())
    await database.execute(f"INSERT INTO brands (uid, name) VALUES {values}")  # ids 1, 2, 3
    try:
        await migrate(any_dsn)
        yield database
    finally:
        await close(database)


async def test_every_brand_gets_a_uid_in_the_instance_alphabet(db: Database) -> None:
    alphabet = await instance_alphabet()
    assert sorted(alphabet) == sorted(DEFAULT_ALPHABET)
    assert alphabet != DEFAULT_ALPHABET
    rows = await db.rows("SELECT id, uid, old_uid FROM brands ORDER BY id")
    for row in rows:
        brand_id = int(row["id"])
        assert row["old_uid"] == OLD[brand_id]
        assert row["uid"] == brand_uid(brand_id, alphabet)
        assert row["uid"] != brand_uid(brand_id)


async def test_old_and_new_uids_both_find_the_brand(db: Database) -> None:
    rows = await db.rows("SELECT id, uid FROM brands ORDER BY id")
    for row in rows:
        brand_id, uid = int(row["id"]), str(row["uid"])
        assert await brand_id_for_uid(uid) == brand_id
        assert await brand_id_for_uid(OLD[brand_id]) == brand_id
        info = await brand_info(OLD[brand_id])
        assert info is not None
        assert (info.id, info.uid) == (brand_id, uid)  # shown with its new uid
    assert await brand_id_for_uid("") is None
    assert await brand_id_for_uid(brand_uid(4)) is None


async def test_a_new_brand_does_not_get_its_default_alphabet_uid(db: Database) -> None:
    info, created = await add_brand("Brand Four")
    assert created
    assert info.uid == brand_uid(info.id, await instance_alphabet())
    assert info.uid != brand_uid(info.id)
    assert await brand_id_for_uid(brand_uid(info.id)) is None  # enumerating finds nothing
    [row] = await db.rows(f"SELECT old_uid FROM brands WHERE id = {info.id}")
    assert row["old_uid"] == ""


async def test_two_instances_draw_different_alphabets(sqlite_dsn: str, pg_dsn: str) -> None:
    alphabets = []
    for dsn in (sqlite_dsn, pg_dsn):
        database = await connect(dsn)
        try:
            await migrate(dsn)
            alphabets.append(await instance_alphabet())
        finally:
            await close(database)
    assert alphabets[0] != alphabets[1]
