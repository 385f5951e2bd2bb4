"""0036: ``vector_deletions``, one row per deleted vector, stamped on the vector clock.

An in-process index follows ``image_embeddings`` by ``change_seq``, but a deleted row
leaves nothing to read: the index kept the vector, answered with it, and on SQLite (which
hands a deleted image's id to the next image inserted) showed it under a new image's id.
A trigger now records each deletion — image, model and a stamp from the same clock as the
writes (the SQLite ``vector_clock``; on PostgreSQL ``rk_vector_changes`` under the clock's
advisory lock) — so a reader sees deletions and writes in one commit order.

Deletions are rare (a re-ingest replacing a rejected article's images), and a running
index may be behind by any amount, so the rows are kept.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute
from rk.server.platform.db.migration_steps import each_engine

CLOCK_LOCK_KEY = 0x726B_7665_6373
"""Migration 0030's advisory-lock key (``rk.server.similarity.vectors.clock``)."""
SQLITE = [
    "CREATE TRIGGER rk_vector_deleted AFTER DELETE ON image_embeddings FOR EACH ROW"
    " BEGIN UPDATE vector_clock SET value = value + 1 WHERE id = 1;"
    " INSERT INTO vector_deletions (change_seq, image_id, model)"
    " SELECT value, OLD.image_id, OLD.model FROM vector_clock WHERE id = 1; END",
]
POSTGRES = [
    f"""CREATE FUNCTION rk_vector_deleted() RETURNS trigger AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock({CLOCK_LOCK_KEY});
      INSERT INTO vector_deletions (change_seq, image_id, model)
        VALUES (nextval('rk_vector_changes'), OLD.image_id, OLD.model);
      RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER rk_vector_deleted AFTER DELETE ON image_embeddings"
    " FOR EACH ROW EXECUTE FUNCTION rk_vector_deleted()",
]


async def forwards(engine: Engine) -> None:
    """The table, its stamp index, and the engine's trigger."""
    columns = {"change_seq": BigInt(), "image_id": BigInt(), "model": Varchar(length=128)}
    await create_table(engine, "vector_deletions", columns)
    await execute(
        engine, "CREATE INDEX vector_deletions_change_seq ON vector_deletions (change_seq)"
    )
    await each_engine(engine, SQLITE, POSTGRES)
