"""The neighbours job against a real database: exact lists, re-submits, and the single lease."""

from __future__ import annotations

import asyncio

import numpy as np

from rk.core.api.plugins import RkPluginManager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.tables import ImageEmbedding, ImageNeighbor, JobLock
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.embeddings import ModelInfo, submit
from rk.server.similarity.neighbours_job import NeighboursJob, NeighboursWorker
from tests.integration.embeddings import seed
from tests.unit.server.brute_force import Lists, assert_exact

DIM = 8
MODEL = ModelInfo(model_id="tiny", dim=DIM)
K = 5


def clustered(rng: np.random.Generator, count: int) -> np.ndarray:
    centres = rng.standard_normal((4, DIM))
    return centres[rng.integers(0, 4, count)] + 0.5 * rng.standard_normal((count, DIM))


async def save(pm: RkPluginManager, kind: str, ids: list[int], vectors: np.ndarray) -> None:
    items = [
        EmbeddingVector(kind=kind, image_id=i, vector=v.tolist())
        for i, v in zip(ids, vectors, strict=True)
    ]
    answer = await submit(EmbeddingSubmit(items=items), MODEL, pm, failure_cap=3)
    assert answer.saved == len(ids)


async def stored_lists() -> Lists:
    lists: Lists = {}
    rows = (
        await ImageNeighbor.select().order_by(ImageNeighbor.image_id).order_by(ImageNeighbor.rank)
    )
    for row in rows:
        lists.setdefault(row["image_id"], []).append((row["neighbor_id"], row["score"]))
    return lists


def job(holder: str, batch: int = 7) -> NeighboursJob:
    return NeighboursJob(
        "tiny", k=K, lease=JobLease("neighbours", holder, ttl_s=30), batch=batch, block_rows=16
    )


async def test_incremental_passes_equal_brute_force_per_kind(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(11)
    runway = await seed.images(await seed.article("show-a"), 60)
    street = await seed.images(await seed.article("street-1", kind="street"), 12, kind="street")
    vectors = {**dict(zip(runway, clustered(rng, 60), strict=True))}
    vectors.update(zip(street, clustered(rng, 12), strict=True))
    worker = job("a")
    # arrivals in uneven rounds, one pass after each; the first images have < K peers
    for lo, hi in [(0, 1), (1, 3), (3, 20), (20, 60)]:
        await save(
            plugin_manager, "runway", runway[lo:hi], np.stack([vectors[i] for i in runway[lo:hi]])
        )
        assert await worker.run() == hi - lo
    await save(plugin_manager, "street", street, np.stack([vectors[i] for i in street]))
    assert await worker.run() == len(street)
    assert await worker.run() == 0
    lists = await stored_lists()
    for ids in (runway, street):
        expected_ids = np.array(ids, dtype=np.int64)
        assert_exact(
            {i: lists[i] for i in ids}, expected_ids, np.stack([vectors[i] for i in ids]), K
        )
    assert all(row["neighbours_at"] > 0 for row in await ImageEmbedding.select())


async def test_a_replaced_vector_is_placed_again_and_lists_stay_exact(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(12)
    ids = await seed.images(await seed.article("show-a"), 40)
    vectors = clustered(rng, 40)
    await save(plugin_manager, "runway", ids, vectors)
    assert await job("a").run() == 40
    # move three images to the other side of the space
    moved = [ids[3], ids[17], ids[30]]
    for image_id in moved:
        vectors[ids.index(image_id)] = -vectors[ids.index(image_id)]
    await save(plugin_manager, "runway", moved, np.stack([vectors[ids.index(i)] for i in moved]))
    assert await job("a").run() >= 3
    assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)


async def test_only_one_holder_at_a_time(db: str) -> None:
    leases = [JobLease("neighbours", f"w{n}", ttl_s=30) for n in range(6)]
    for _ in range(5):
        won = await asyncio.gather(*(lease.acquire() for lease in leases))
        assert won.count(True) == 1
        winner = leases[won.index(True)]
        assert await winner.renew()
        assert [await lease.renew() for lease in leases].count(True) == 1
        await winner.release()


async def test_a_held_lease_keeps_the_job_out_until_it_runs_out(
    db: str, plugin_manager: RkPluginManager
) -> None:
    ids = await seed.images(await seed.article("show-a"), 5)
    await save(plugin_manager, "runway", ids, clustered(np.random.default_rng(1), 5))
    other = JobLease("neighbours", "other-process", ttl_s=30)
    assert await other.acquire()
    assert await job("me").run() is None
    assert await ImageNeighbor.count() == 0
    # the other process died: its lease runs out and the job takes over
    await JobLock.update({JobLock.until: 1}).where(JobLock.name == "neighbours")
    assert await job("me").run() == 5
    assert not await other.renew()


async def test_two_workers_place_everything_once(db: str, plugin_manager: RkPluginManager) -> None:
    rng = np.random.default_rng(13)
    ids = await seed.images(await seed.article("show-a"), 50)
    vectors = clustered(rng, 50)
    workers = [
        NeighboursWorker("tiny", k=K, poll_interval_s=0.05, batch=10, holder=f"w{n}")
        for n in range(2)
    ]
    for worker in workers:
        plugin_manager.register(worker, name=f"neighbours-{worker.lease.holder}")
        worker.start()
    try:
        for lo in range(0, 50, 10):
            await save(plugin_manager, "runway", ids[lo : lo + 10], vectors[lo : lo + 10])
        for _ in range(400):
            if await ImageEmbedding.count().where(ImageEmbedding.neighbours_at == 0) == 0:
                break
            await asyncio.sleep(0.05)
    finally:
        for worker in workers:
            await worker.stop()
            plugin_manager.unregister(worker)
    assert_exact(await stored_lists(), np.array(ids, dtype=np.int64), vectors, K)
