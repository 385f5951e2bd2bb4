"""0003: a covering index for the neighbours job's threshold read.

The job reads the K-th entry of every list of a model (``WHERE model = ? AND rank = ?``);
without this index that is a scan of every list row (5 s for 100,000 lists on SQLite).
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute


async def forwards(engine: Engine) -> None:
    """Index (model, rank, image_id, score): the read is answered from the index alone."""
    await execute(
        engine,
        "CREATE INDEX image_neighbors_model_rank_idx"
        " ON image_neighbors (model, rank, image_id, score)",
    )
