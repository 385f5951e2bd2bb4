"""0045: ``ingest_jobs`` drops its single-column ``brand_id`` index.

0001 indexed ``brand_id`` alone; 0015 added ``(brand_id, id)`` for the console's job list,
which serves every query the first one did. Each job's claim and completion change its
``status``, so neither update is HOT and each writes a new entry into every index of the
table: the redundant index was one write in seven on the queue's hottest path.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute


async def forwards(engine: Engine) -> None:
    """Drop ``ingest_jobs_brand_id``; ``ingest_jobs_brand_id_idx`` remains."""
    await execute(engine, "DROP INDEX IF EXISTS ingest_jobs_brand_id")
