"""0031: pgvector — enable the extension where the server has it, and the spaces table.

``vector_spaces`` lists the pgvector tables, one per (model, kind, dim); they are made on
demand by ``rk.server.similarity.vectors.pg_spaces`` (their column width is the model's dim). It
exists on SQLite too, empty, so both engines keep one schema.

``CREATE EXTENSION`` needs the package on the server and a role allowed to create it; when
either is missing the migration leaves a log line and goes on, and the backend says at
startup what to install and uses the exact index until then.
"""

from __future__ import annotations

import logging

from piccolo.columns import BigInt, Integer, Varchar
from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.server.platform.db.migrate import create_table, execute

log = logging.getLogger("rk.server")
"""Debug only: the backend says at startup, in one line, what to install (a CLI says nothing)."""


async def _try_extension(engine: Engine) -> None:
    """``CREATE EXTENSION vector`` in a savepoint, so a refusal leaves the migration whole."""
    found = await engine.run_querystring(
        QueryString("SELECT 1 AS x FROM pg_available_extensions WHERE name = 'vector'")
    )
    if not found:
        log.debug("migration 0031: pgvector is not installed on this server; exact index for now")
        return
    try:
        async with engine.transaction():  # a savepoint inside the migration's transaction
            await execute(engine, "CREATE EXTENSION IF NOT EXISTS vector")
    except Exception as exc:  # no privilege: the backend explains at startup
        log.debug("migration 0031: CREATE EXTENSION vector refused: %s", str(exc).splitlines()[0])


async def forwards(engine: Engine) -> None:
    """The spaces table and its unique key; the extension on PostgreSQL when possible."""
    columns = {
        "model": Varchar(length=128),
        "kind": Varchar(length=16),
        "dim": Integer(),
        "ready_at": BigInt(default=0),
    }
    await create_table(engine, "vector_spaces", columns)
    await execute(
        engine, "CREATE UNIQUE INDEX vector_spaces_key ON vector_spaces (model, kind, dim)"
    )
    if engine.engine_type != "sqlite":
        await _try_extension(engine)
