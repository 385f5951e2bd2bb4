"""0035: ``vector_clock``, the counter SQLite stamps ``change_seq`` from, so stamps only grow.

Migration 0030's SQLite trigger stamped ``MAX(change_seq) + 1``. When the newest vectors
are deleted (re-ingesting an article replaces its images, and their vectors go with them),
that maximum goes back, and the next writes get stamps a running index has already passed:
it never reads them until the process restarts. The clock is one row whose ``value`` is the
last stamp handed out; the triggers increment it and then read it, inside the writer's
transaction (SQLite has one writer at a time, so no two writes share a number).

PostgreSQL's clock is already the sequence ``rk_vector_changes``, which never goes back;
the table exists there too, empty, so both engines keep one schema.
"""

from __future__ import annotations

from piccolo.columns import BigInt
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table
from rk.server.platform.db.migration_steps import each_engine

SQLITE_STAMP = (
    "BEGIN UPDATE vector_clock SET value = value + 1 WHERE id = 1;"
    " UPDATE image_embeddings SET change_seq = (SELECT value FROM vector_clock WHERE id = 1)"
    " WHERE id = NEW.id; END"
)
SQLITE = [
    "INSERT INTO vector_clock (id, value)"
    " SELECT 1, COALESCE(MAX(change_seq), 0) FROM image_embeddings",
    "DROP TRIGGER rk_vector_inserted",
    "DROP TRIGGER rk_vector_updated",
    "CREATE TRIGGER rk_vector_inserted AFTER INSERT ON image_embeddings"
    f" FOR EACH ROW {SQLITE_STAMP}",
    "CREATE TRIGGER rk_vector_updated AFTER UPDATE OF vector, model, kind ON image_embeddings"
    f" FOR EACH ROW {SQLITE_STAMP}",
]


async def forwards(engine: Engine) -> None:
    """The clock table; on SQLite its row, set to the highest stamp, and the new triggers."""
    await create_table(engine, "vector_clock", {"value": BigInt(default=0)})
    await each_engine(engine, SQLITE, postgres=())
