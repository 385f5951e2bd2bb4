"""Migration 0064: brand names in NFC and unique ignoring case; clashing names stop it.

Issue 32: ``rk brands add`` created "Comme des Garçons" three times (NFC, NFD, another
case). Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import AsyncIterator

import asyncpg
import pytest

from rk.core.api.errors import RkError
from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations, migrate
from rk.server.platform.db.piccolo_engines import engine_for_database

NFC = "Comme des Garçons"
NFD = unicodedata.normalize("NFD", NFC)


@pytest.fixture
async def old_db(any_dsn: str) -> AsyncIterator[Database]:
    """A database as rk left it before migration 0064."""
    database = await connect(any_dsn)
    await apply_migrations(engine_for_database(database), before="0064")
    try:
        yield database
    finally:
        await close(database)


async def add(db: Database, *names: str) -> None:
    for n, name in enumerate(names, start=1):
        await db.execute(
            "INSERT INTO brands (uid, name) VALUES ($1, $2)"
            if db.engine == "postgresql"
            else "INSERT INTO brands (uid, name) VALUES (?, ?)",
            f"u{n}",
            name,
        )


async def test_clashing_names_stop_the_migration_and_are_named(
    old_db: Database, any_dsn: str
) -> None:
    await add(old_db, NFC, NFD, "COMME DES GARÇONS", "Acne Studios")
    with pytest.raises(RkError) as err:
        await migrate(any_dsn)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("migration 0064_brand_name_key: brand names differ only in case")
    assert f"{NFC!r} (id 1) and {NFD!r} (id 2) and 'COMME DES GARÇONS' (id 3)" in message
    assert "Acne" not in message
    names = await old_db.rows("SELECT name FROM brands ORDER BY id")
    assert [row["name"] for row in names] == [NFC, NFD, "COMME DES GARÇONS", "Acne Studios"]
    done = await old_db.rows("SELECT id FROM rk_migrations WHERE id = '0064_brand_name_key'")
    assert done == []


async def test_names_become_nfc_and_unique_in_any_case(old_db: Database, any_dsn: str) -> None:
    await add(old_db, NFD, "Acne Studios")
    assert "0064_brand_name_key" in await migrate(any_dsn)
    names = await old_db.rows("SELECT name FROM brands ORDER BY id")
    assert [row["name"] for row in names] == [NFC, "Acne Studios"]
    with pytest.raises((asyncpg.UniqueViolationError, sqlite3.IntegrityError)):
        await old_db.execute("INSERT INTO brands (uid, name) VALUES ('u9', 'ACNE STUDIOS')")
