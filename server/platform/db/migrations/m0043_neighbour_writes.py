"""0043: neighbour list writes without a counter trigger and with one index fewer.

Migration 0021's trigger on ``image_neighbors`` moved the public ``neighbours`` counter
once per written row on SQLite (no statement triggers) and once per statement on
PostgreSQL, which is once per row of an ``executemany``: a neighbours batch rewriting
tens of thousands of ranks paid a counter update for each. Lists have two writers, and
each now moves the counter once in its own transaction (``public_changes.bump_neighbours``):
the neighbours job, once per batch it places, and a vector save that drops replaced
images from other lists. Rows removed by a cascade from a deleted image need no move of
their own: deleting an image of a published article moves ``content`` (0021), and an
image that is not published is never shown among a page's similar looks.

The index on ``(model, neighbor_id)`` (0001) goes too: every moved rank updated it, and
its one query, a save dropping replaced images from lists, is served as well by 0004's
index on ``neighbor_id`` (there is one model per archive in practice). On SQLite this cut
the CPU time of writing a batch's moved ranks by about 45%.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute

SQLITE_TRIGGERS = ["neighbors_insert", "neighbors_update", "neighbors_delete"]


async def forwards(engine: Engine) -> None:
    """Drop 0021's triggers on ``image_neighbors`` and the ``(model, neighbor_id)`` index."""
    if engine.engine_type == "sqlite":
        for name in SQLITE_TRIGGERS:
            await execute(engine, f"DROP TRIGGER IF EXISTS rk_public_{name}")
    else:
        await execute(engine, "DROP TRIGGER IF EXISTS rk_public_neighbors ON image_neighbors")
    await execute(engine, "DROP INDEX IF EXISTS image_neighbors_model_neighbor_idx")
