"""Lists an image leaves when it is deleted are made whole again by the next pass.

Deleting images (a re-ingest replacing an article's images) cascades them out of every
neighbour list they were in; migration 0044 sends those lists back to the neighbours job,
so after its next pass every list is the exact top-K of the images left, for each built-in
index on each database it serves (the ``setup`` fixture).
"""

from __future__ import annotations

import numpy as np

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import ImageEmbedding
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.neighbours_job import NeighboursJob
from tests.integration.embeddings import seed
from tests.integration.vectors.conftest import Setup
from tests.integration.vectors.helpers import MODEL, clustered, save
from tests.integration.vectors.test_changes_after_deletes import delete_images, stored_lists
from tests.unit.server.brute_force import assert_exact

K = 4


async def test_lists_left_short_by_deletes_are_recomputed(
    setup: Setup, plugin_manager: RkPluginManager
) -> None:
    """Three articles placed; one's images deleted, then another's while new vectors wait:
    after each, one pass leaves every list exact among the images left."""
    lease = JobLease("neighbours", "t", ttl_s=30)
    job = NeighboursJob(MODEL, k=K, lease=lease, index=setup.index)
    rng = np.random.default_rng(17)
    kept, doomed, last = [await seed.article(key) for key in ("kept", "doomed", "last")]
    ids = await seed.images(kept, 20)
    gone = await seed.images(doomed, 8)
    later = await seed.images(last, 6)
    vectors = clustered(rng, 34)
    await save(plugin_manager, ids + gone + later, vectors)
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
    await save(plugin_manager, new, fresh)  # newcomers and a delete in the same pass
    await delete_images(last)
    await job.run()
    left = np.array(ids + new, dtype=np.int64)
    assert_exact(await stored_lists(), left, np.concatenate([vectors[:20], fresh]), K)
