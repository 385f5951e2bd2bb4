"""Lists an image leaves when it is deleted are made whole again by the next pass.

Deleting images (a re-ingest replacing an article's images, an article deleted) cascades
them out of every neighbour list they were in; migration 0044 sends those lists back to
the neighbours job, so after its next pass every list is the exact top-K of the images
left, on SQLite and PostgreSQL, through the exact index and (on PostgreSQL with pgvector)
the HNSW one.
"""

from __future__ import annotations

import numpy as np

from rk.core.config import VectorSettings
from rk.core.plugins import RkPluginManager
from rk.core.vector_indexes import VectorIndex
from rk.server.db.engine import close, connect
from rk.server.db.migrate import migrate
from rk.server.db.tables import ImageEmbedding
from rk.server.services.job_lock import JobLease
from rk.server.vectors.exact import ExactIndex
from rk.server.vectors.pgvector import PgvectorIndex
from rk.server.workers.neighbours import NeighboursJob
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import MODEL, clustered, save
from tests.integration.vectors.test_changes_after_deletes import delete_images, stored_lists
from tests.unit.server.brute_force import assert_exact

K = 4


async def deletes_then_pass(pm: RkPluginManager, index: VectorIndex) -> None:
    """Three articles placed; one's images deleted, then another's while new vectors wait:
    after each, one pass leaves every list exact among the images left."""
    job = NeighboursJob(MODEL, k=K, lease=JobLease("neighbours", "t", ttl_s=30), index=index)
    rng = np.random.default_rng(17)
    kept, doomed, last = [await seed.article(key) for key in ("kept", "doomed", "last")]
    ids = await seed.images(kept, 20)
    gone = await seed.images(doomed, 8)
    later = await seed.images(last, 6)
    vectors = clustered(rng, 34)
    await save(pm, ids + gone + later, vectors)
    assert await job.run() == 34
    held = {i for entries in (await stored_lists()).values() for i, _ in entries}
    assert held & set(gone)  # the doomed images are in lists, or this test proves nothing

    await delete_images(doomed)
    requeued = await ImageEmbedding.count().where(ImageEmbedding.neighbours_at == 0)
    assert requeued > 0
    assert await job.run() == requeued
    left = np.array(ids + later, dtype=np.int64)
    assert_exact(await stored_lists(), left, np.concatenate([vectors[:20], vectors[28:]]), K)

    new = [await seed.image(kept, position) for position in range(21, 25)]
    fresh = clustered(rng, 4)
    await save(pm, new, fresh)  # newcomers and a delete in the same pass
    await delete_images(last)
    await job.run()
    left = np.array(ids + new, dtype=np.int64)
    assert_exact(await stored_lists(), left, np.concatenate([vectors[:20], fresh]), K)


async def test_lists_left_short_by_deletes_are_recomputed(
    any_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        await deletes_then_pass(plugin_manager, ExactIndex(VectorSettings()))
    finally:
        await close(engine)


async def test_lists_left_short_by_deletes_are_recomputed_on_pgvector(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        await deletes_then_pass(plugin_manager, PgvectorIndex(VectorSettings()))
    finally:
        await close(engine)
