"""rk's migration runner: ordered modules in ``rk.server.platform.db.migrations``, one history.

Why not piccolo's own runner: it finds its engine through a global ``piccolo_conf``
module, prints its progress, and takes no lock. This runner takes any DSN, returns what
it applied, and is safe when several processes start at once:

- applied ids are rows of ``rk_migrations (id, applied_at)``;
- each pending migration runs in its own transaction, together with its row, under a
  lock: ``pg_advisory_xact_lock`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite. Both
  databases have transactional DDL, so a failed migration leaves nothing behind;
- the applied set is re-read under the lock, so a migration another process applied
  while this one waited is skipped.

A migration module defines ``async def forwards(engine: Engine) -> None`` and builds its
schema with ``create_table`` (piccolo columns, rendered for the engine) and ``execute``
(SQL both engines accept). See ``migrations/__init__.py`` for how to add one.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from piccolo.columns import Column
from piccolo.engine.base import Engine
from piccolo.engine.sqlite import SQLiteEngine
from piccolo.querystring import QueryString
from piccolo.table import Table, create_table_class

from rk.server.platform.db import migrations
from rk.server.platform.db.database import Database, open_database
from rk.server.platform.db.piccolo_engines import engine_for_database

MODULE_NAME = re.compile(r"^m(\d{4}_[a-z0-9_]+)$")
"""Migration modules are ``m<NNNN>_<words>.py``; the id is the name without the ``m``."""
PG_LOCK_KEY = 0x726B_6D69_6772
"""The advisory-lock key every rk process migrating a PostgreSQL database takes."""
HISTORY_DDL = (
    "CREATE TABLE IF NOT EXISTS rk_migrations "
    "(id VARCHAR(128) PRIMARY KEY NOT NULL, applied_at BIGINT NOT NULL)"
)


@dataclass(frozen=True)
class Migration:
    """One step of the history: its id (``0001_initial``) and its forwards function."""

    id: str
    forwards: Callable[[Engine], Awaitable[None]]


def discover() -> list[Migration]:
    """Every migration module of the package, in id order."""
    found: list[Migration] = []
    for info in pkgutil.iter_modules(migrations.__path__):
        match = MODULE_NAME.match(info.name)
        if match is None:
            continue
        module = importlib.import_module(f"{migrations.__name__}.{info.name}")
        found.append(Migration(id=match.group(1), forwards=module.forwards))
    found.sort(key=lambda migration: migration.id)
    numbers = [migration.id[:4] for migration in found]
    if len(numbers) != len(set(numbers)):
        raise RuntimeError(f"two migrations share a number: {[m.id for m in found]}")
    return found


def frozen_table(engine: Engine, tablename: str, columns: dict[str, Column]) -> type[Table]:
    """A piccolo table ``tablename`` of ``columns`` (plus an ``id`` primary key) on ``engine``.

    Migrations pass fresh column objects, frozen as they were when the migration was
    written, so later edits to ``tables.py`` never change what an old migration does.
    """
    class_name = "".join(part.title() for part in tablename.split("_")) + "Frozen"
    return create_table_class(
        class_name, class_kwargs={"tablename": tablename, "db": engine}, class_members=columns
    )


async def create_table(engine: Engine, tablename: str, columns: dict[str, Column]) -> None:
    """Create ``tablename`` (plus an ``id`` primary key) with piccolo's DDL for ``engine``."""
    for ddl in frozen_table(engine, tablename, columns).create_table().ddl:
        await engine.run_ddl(ddl)


async def execute(engine: Engine, sql: str) -> None:
    """Run one SQL statement (it must be valid on both SQLite and PostgreSQL)."""
    await engine.run_ddl(sql)


@asynccontextmanager
async def _locked(engine: Engine) -> AsyncIterator[None]:
    """A transaction that only one migrating process at a time can be inside.

    On SQLite the engine's transaction is ``BEGIN IMMEDIATE``, which is that lock already.
    """
    if isinstance(engine, SQLiteEngine):
        async with engine.transaction():
            yield
        return
    async with engine.transaction():
        await engine.run_ddl(f"SELECT pg_advisory_xact_lock({PG_LOCK_KEY})")
        yield


async def _applied(engine: Engine) -> set[str]:
    await engine.run_ddl(HISTORY_DDL)
    rows = await engine.run_querystring(QueryString("SELECT id FROM rk_migrations"))
    return {row["id"] for row in rows}


async def apply_migrations(engine: Engine, before: str | None = None) -> list[str]:
    """Apply every pending migration on ``engine`` (only those with ids below ``before``, as
    an older rk would have left the database), one transaction each; their ids."""
    applied: list[str] = []
    history = [m for m in discover() if before is None or m.id < before]
    while True:
        async with _locked(engine):
            done = await _applied(engine)
            pending = [migration for migration in history if migration.id not in done]
            if not pending:
                return applied
            migration = pending[0]
            await migration.forwards(engine)
            await engine.run_querystring(
                QueryString(
                    "INSERT INTO rk_migrations (id, applied_at) VALUES ({}, {})",
                    migration.id,
                    int(time.time()),
                )
            )
        applied.append(migration.id)


async def migrate(dsn: str) -> list[str]:
    """Bring the database at ``dsn`` up to date; the ids applied ([] when it already was)."""
    db = await open_database(dsn, pool_size=1, readers=1)
    try:
        return await migrate_database(db)
    finally:
        await db.close()


async def migrate_database(db: Database) -> list[str]:
    """Bring ``db`` up to date over its own connections; the ids applied."""
    return await apply_migrations(engine_for_database(db))
