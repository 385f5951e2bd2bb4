"""The thresholds the exact index holds between neighbours batches, on SQLite and PostgreSQL.

After the job's own writes the held thresholds are updated, not read again, and equal what
the database holds; any other change to the lists (another process's write, a re-submitted
vector, an image deleted with its lists cascading) makes the next batch read them again; a
write that rolled back leaves them as they were.
"""

from __future__ import annotations

import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.neighbour_lists import Thresholds, write_lists
from rk.server.similarity.neighbour_thresholds import HELD, with_lists
from rk.server.similarity.neighbours_job import NeighboursJob
from rk.server.similarity.repository.neighbour_lists import load_lists, place_transaction
from rk.server.similarity.vectors.exact import ExactIndex
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import MODEL, clustered, save
from tests.integration.vectors.test_changes_after_deletes import delete_images, stored_lists
from tests.unit.server.brute_force import assert_exact

K = 4


class Rollback(Exception):
    """Raised inside a write transaction to undo it."""


async def held_equals_stored() -> int:
    """Assert the thresholds the index would use now equal a fresh read; the loads so far."""
    held = await HELD.get(MODEL, K)
    fresh = await Thresholds.load(MODEL, K)
    assert held.ids.tolist() == fresh.ids.tolist()
    assert held.scores.tolist() == fresh.scores.tolist()
    return HELD.loads


async def rolled_back_write(lists: dict[int, list[tuple[int, float]]]) -> None:
    """Write ``lists`` as the job does, then fail before the commit."""
    async with place_transaction():
        await write_lists(MODEL, lists)
        raise Rollback


@pytest.fixture
async def job(any_dsn: str) -> object:
    """A migrated database bound to the tables, and the job the backend runs on it."""
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    lease = JobLease("neighbours", "here", ttl_s=30)
    yield NeighboursJob(MODEL, k=K, lease=lease, index=ExactIndex(VectorSettings()), batch=6)
    await close(engine)


async def test_the_jobs_own_writes_update_the_held_thresholds(
    job: NeighboursJob, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(8)
    article = await seed.article("show")
    ids = await seed.images(article, 40)
    vectors = clustered(rng, 40)
    await save(plugin_manager, ids[:10], vectors[:10])
    assert await job.run() == 10
    loads = await held_equals_stored()
    for lo, hi in [(10, 17), (17, 30), (30, 40)]:
        await save(plugin_manager, ids[lo:hi], vectors[lo:hi])
        assert await job.run() == hi - lo  # several batches of 6, each writing lists
        assert await held_equals_stored() == loads  # followed the writes, never read again
    assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)


async def test_other_changes_to_the_lists_make_the_next_batch_read_them_again(
    job: NeighboursJob, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(9)
    kept = await seed.article("kept")
    ids = await seed.images(kept, 24)
    vectors = clustered(rng, 24)
    doomed = await seed.article("doomed")
    gone = await seed.images(doomed, 6)
    await save(plugin_manager, ids, vectors)
    await save(plugin_manager, gone, clustered(rng, 6))
    await job.run()
    loads = await held_equals_stored()

    current = await load_lists(MODEL, [ids[0]])
    async with place_transaction():  # another process's job writes a list (as it stands)
        await write_lists(MODEL, current)
    assert await held_equals_stored() == loads + 1

    with pytest.raises(Rollback):  # a write rolled back: nothing changed
        await rolled_back_write({ids[2]: [(ids[3], 0.25)]})
    assert await held_equals_stored() == loads + 1

    await delete_images(doomed)  # cascades out of lists without moving the counter
    assert await held_equals_stored() == loads + 2

    moved = [ids[5]]  # a re-submitted vector drops its image from other lists
    await save(plugin_manager, moved, -vectors[5:6])
    assert await held_equals_stored() == loads + 3

    vectors[5] = -vectors[5]
    await job.run()
    assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)


def test_with_lists_replaces_adds_and_drops_thresholds() -> None:
    held = Thresholds(np.array([7, 3, 5], dtype=np.int64), np.array([0.7, 0.3, 0.5], np.float32))
    lists = {
        3: [(1, 0.9), (2, 0.8), (4, 0.6)],  # full again: its threshold moves
        5: [(1, 0.9)],  # shorter than K: no threshold
        9: [(1, 0.95), (2, 0.9), (3, 0.85)],  # newly full
    }
    after = with_lists(held, lists, 3)
    assert after.ids.tolist() == [3, 7, 9]
    assert after.scores.tolist() == pytest.approx([0.6, 0.7, 0.85])
