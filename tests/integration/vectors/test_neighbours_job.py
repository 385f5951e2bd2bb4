"""The neighbours job on pgvector: incremental passes and re-submits give the exact lists on
small data (the HNSW scan visits every vector), through the same job the backend runs."""

from __future__ import annotations

import numpy as np

from rk.core.api.plugins import RkPluginManager
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.neighbours_job import NeighboursJob
from rk.server.similarity.vectors.pgvector import PgvectorIndex
from tests.integration.embeddings import seed
from tests.integration.embeddings.test_neighbours_job import K, clustered, save, stored_lists
from tests.unit.server.brute_force import assert_exact


async def test_passes_and_resubmits_on_pgvector_equal_brute_force(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        index = PgvectorIndex(VectorSettings())
        job = NeighboursJob(
            "tiny", k=K, lease=JobLease("neighbours", "a", ttl_s=30), index=index, batch=7
        )
        rng = np.random.default_rng(21)
        ids = await seed.images(await seed.article("show"), 50)
        vectors = clustered(rng, 50)
        for lo, hi in [(0, 1), (1, 4), (4, 20), (20, 50)]:
            await save(plugin_manager, "runway", ids[lo:hi], vectors[lo:hi])
            assert await job.run() == hi - lo
        assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)
        moved = [ids[2], ids[25]]
        for image_id in moved:
            vectors[ids.index(image_id)] = -vectors[ids.index(image_id)]
        await save(
            plugin_manager, "runway", moved, np.stack([vectors[ids.index(i)] for i in moved])
        )
        assert await job.run() >= 2
        assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)
        assert index.nbytes() == 0  # placed by HNSW, not by the exact fallback
    finally:
        await close(engine)
