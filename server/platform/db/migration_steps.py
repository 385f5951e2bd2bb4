"""Steps several migrations take alike, so each migration writes out only its own schema.

Each step runs exactly the statements the migrations once wrote out themselves:
``tests/integration/db/test_migration_sql.py`` pins every migration's SQL on both engines.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from piccolo.columns import Column
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute, frozen_table


async def execute_all(engine: Engine, statements: Iterable[str]) -> None:
    """Run ``statements`` in order (each valid on both SQLite and PostgreSQL)."""
    for sql in statements:
        await execute(engine, sql)


async def each_engine(engine: Engine, sqlite: Iterable[str], postgres: Iterable[str]) -> None:
    """Run the statements written for ``engine``'s dialect, in order."""
    await execute_all(engine, sqlite if engine.engine_type == "sqlite" else postgres)


def sqlite_row_trigger(name: str, event: str, when: str, body: str) -> str:
    """``CREATE TRIGGER`` on SQLite: ``body`` for each row of ``event`` that ``when`` holds of."""
    return f"CREATE TRIGGER {name} {event} FOR EACH ROW WHEN {when} BEGIN {body} END"


Tables = Callable[[], dict[str, dict[str, Column]]]
"""Each new table's name and columns, fresh objects per call (piccolo binds a column to one
table class, so a migration run twice, as the tests do, needs new ones)."""


def schema_steps(
    statements: Iterable[str], tables: Tables | None = None
) -> Callable[[Engine], Awaitable[None]]:
    """A migration's ``forwards`` that creates the ``tables`` (if any), then runs the
    ``statements`` (each valid on both SQLite and PostgreSQL), in order."""

    async def forwards(engine: Engine) -> None:
        for tablename, columns in (tables() if tables else {}).items():
            await create_table(engine, tablename, columns)
        await execute_all(engine, statements)

    return forwards


def table_ddl(engine: Engine, tablename: str, columns: dict[str, Column], key: str = "") -> str:
    """``CREATE TABLE tablename`` as piccolo renders it for ``engine``, with the table
    constraint ``key`` (a foreign key piccolo columns cannot declare) appended when given."""
    (ddl,) = frozen_table(engine, tablename, columns).create_table().ddl
    return f"{ddl.rstrip().removesuffix(')')}, {key})" if key else ddl


async def bigint_ids(engine: Engine, *tables: str) -> None:
    """On PostgreSQL, widen the ``id`` of each of ``tables`` and its sequence to BIGINT (as
    0011 did for the growing tables); nothing on SQLite, whose integers are 64-bit already."""
    if engine.engine_type != "postgres":
        return
    for table in tables:
        await execute(engine, f"ALTER TABLE {table} ALTER COLUMN id TYPE BIGINT")
        await execute(engine, f"ALTER SEQUENCE {table}_id_seq AS BIGINT")
