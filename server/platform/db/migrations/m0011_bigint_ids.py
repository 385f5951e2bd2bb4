"""0011: row ids are BIGINT on PostgreSQL where they grow (SERIAL's int4 ends at 2^31 - 1).

SQLite's ``INTEGER PRIMARY KEY`` is already 64-bit, so this changes PostgreSQL only: the
id column and its sequence of every table whose rows accumulate. Ids in URLs and bodies
are bounded to ``rk.core.api.wire.MAX_ID`` (2^62), so a larger one is a 404 or 422, never a
database error.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migration_steps import bigint_ids

GROWING = (
    "brands",
    "articles",
    "images",
    "image_embeddings",
    "image_embedding_failures",
    "image_neighbors",
    "crawl_tasks",
    "ingest_jobs",
    "signed_requests",
)


async def forwards(engine: Engine) -> None:
    """Widen the ids (and sequences) of the growing tables on PostgreSQL."""
    await bigint_ids(engine, *GROWING)
