"""0044: deleting an image sends the lists it was in back to the neighbours job.

A deleted image leaves every neighbour list that held it by cascade (0004), one entry
short, and nothing filled the gap: the job only places new or re-submitted vectors, so
those lists stayed short until a closer newcomer happened along (a re-ingest replacing an
article's images left a gap in each list they were in). A ``BEFORE DELETE`` trigger on
``images`` now marks the vectors owning such lists unplaced (``neighbours_at = 0``) while
the rows still say which they are; the next pass recomputes those lists in full, as it
does for the lists a re-submitted vector leaves (``forget_replaced``). Marking a row
placed or unplaced stamps nothing (0030), so no copy of the vectors re-reads it. On
PostgreSQL the trigger takes the vector clock first, the order every writer of vectors and
lists locks in (the cascade's own deletion record takes it too), so it never waits on a
neighbours batch in the opposite order.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migration_steps import each_engine

CLOCK_LOCK_KEY = 0x726B_7665_6373
"""Migration 0030's advisory-lock key (``rk.server.similarity.vectors.clock``)."""
REQUEUE = (
    "UPDATE image_embeddings SET neighbours_at = 0 WHERE neighbours_at <> 0"
    " AND (image_id, model) IN"
    " (SELECT image_id, model FROM image_neighbors WHERE neighbor_id = OLD.id)"
)
SQLITE = [
    f"CREATE TRIGGER rk_lists_before_image_delete BEFORE DELETE ON images"
    f" FOR EACH ROW BEGIN {REQUEUE}; END",
]
POSTGRES = [
    f"""CREATE FUNCTION rk_lists_before_image_delete() RETURNS trigger AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM image_neighbors WHERE neighbor_id = OLD.id) THEN
        PERFORM pg_advisory_xact_lock({CLOCK_LOCK_KEY});
        {REQUEUE};
      END IF;
      RETURN OLD;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER rk_lists_before_image_delete BEFORE DELETE ON images"
    " FOR EACH ROW EXECUTE FUNCTION rk_lists_before_image_delete()",
]


async def forwards(engine: Engine) -> None:
    """The engine's trigger."""
    await each_engine(engine, SQLITE, POSTGRES)
