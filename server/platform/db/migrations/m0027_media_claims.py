"""0027: ``media_claims``, the objects a running ingest job is about to reference.

A job claims a key before it looks at or writes the object; the claim lives as long as
its job is ``processing``. Deleting an object (job rollback, media cleanup, ``rk storage
gc``) re-checks image rows and live claims under a per-key lock, so an object another job
is about to reference is never deleted. ``images.thumb_key`` gets the index those
reference checks need.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute


async def forwards(engine: Engine) -> None:
    """Create ``media_claims`` (indexed by key and job) and index ``images.thumb_key``."""
    await create_table(
        engine,
        "media_claims",
        {
            "key": Varchar(length=64),
            "job_id": BigInt(),
            "claimed_at": BigInt(default=0),
        },
    )
    await execute(engine, "CREATE INDEX media_claims_key ON media_claims (key)")
    await execute(engine, "CREATE INDEX media_claims_job_id ON media_claims (job_id)")
    await execute(engine, "CREATE INDEX images_thumb_key ON images (thumb_key)")
