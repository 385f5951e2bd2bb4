"""0030: ``image_embeddings.change_seq``, a number the database gives every vector write, in
commit order, so an in-process index can follow the table without timing constants.

Ids cannot serve: on PostgreSQL a transaction takes its id when it inserts and may commit
after a transaction that took a higher one, so a reader that saw the higher id can miss
the lower for good. Here writers of vectors take one transaction-scoped advisory lock
before they draw the number (a ``BEFORE`` trigger does both), so numbers are handed out in
the order their transactions commit: whatever a reader sees is every number up to the
highest it sees (aborted numbers aside, which never appear). SQLite has one writer at a
time, so ``MAX + 1`` in an ``AFTER`` trigger gives the same order.

Triggers fire on insert and on a write of ``vector``, ``model`` or ``kind`` (a re-submitted
vector), not when the neighbours job marks a row placed.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migration_steps import each_engine, execute_all

CLOCK_LOCK_KEY = 0x726B_7665_6373
"""The advisory-lock key vector writers hold until they commit
(``rk.server.similarity.vectors.clock``)."""
COMMON = [
    "ALTER TABLE image_embeddings ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0",
    "UPDATE image_embeddings SET change_seq = id",
    "CREATE INDEX image_embeddings_change_seq_idx ON image_embeddings (change_seq)",
]
SQLITE_STAMP = (
    "BEGIN UPDATE image_embeddings SET change_seq ="
    " (SELECT COALESCE(MAX(change_seq), 0) + 1 FROM image_embeddings) WHERE id = NEW.id; END"
)
SQLITE = [
    "CREATE TRIGGER rk_vector_inserted AFTER INSERT ON image_embeddings"
    f" FOR EACH ROW {SQLITE_STAMP}",
    "CREATE TRIGGER rk_vector_updated AFTER UPDATE OF vector, model, kind ON image_embeddings"
    f" FOR EACH ROW {SQLITE_STAMP}",
]
POSTGRES = [
    "CREATE SEQUENCE rk_vector_changes",
    "SELECT setval('rk_vector_changes', GREATEST((SELECT MAX(id) FROM image_embeddings), 1))",
    f"""CREATE FUNCTION rk_vector_stamp() RETURNS trigger AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock({CLOCK_LOCK_KEY});
      NEW.change_seq := nextval('rk_vector_changes');
      RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER rk_vector_stamp BEFORE INSERT OR UPDATE OF vector, model, kind"
    " ON image_embeddings FOR EACH ROW EXECUTE FUNCTION rk_vector_stamp()",
]


async def forwards(engine: Engine) -> None:
    """The column, its index, and the engine's stamping trigger."""
    await execute_all(engine, COMMON)
    await each_engine(engine, SQLITE, POSTGRES)
