"""A running exact index after the newest vectors were deleted, on SQLite and PostgreSQL.

Deleting images (re-ingesting an article replaces its images, and their vectors go with
them) removes the highest ``change_seq`` stamps. Vectors saved afterwards must still be
stamped above every stamp a running index has seen, or it never reads them (search) until
the process restarts; and a vector deleted must leave the answers.
"""

from __future__ import annotations

import asyncio
import sys
from asyncio.subprocess import PIPE

import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image, ImageNeighbor
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.neighbours_job import NeighboursJob
from rk.server.similarity.vectors.exact import ExactIndex
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import DIM, MODEL, brute, clustered, save
from tests.unit.server.brute_force import Lists, assert_exact

K = 5


@pytest.fixture
async def db(any_dsn: str) -> object:
    """A migrated database on each engine, bound to the tables."""
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    yield any_dsn
    await close(engine)


async def stored_lists() -> Lists:
    lists: Lists = {}
    rows = await ImageNeighbor.select().order_by(ImageNeighbor.image_id, ImageNeighbor.rank)
    for row in rows:
        lists.setdefault(row["image_id"], []).append((row["neighbor_id"], row["score"]))
    return lists


async def delete_images(article_id: int) -> None:
    """What re-ingesting a rejected article does to its old images (and so their vectors)."""
    await Image.delete().where(Image.article_id == article_id)


async def test_search_sees_vectors_saved_after_the_newest_were_deleted(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(5)
    index = ExactIndex(VectorSettings())
    kept = await seed.article("kept")
    first = await seed.images(kept, 6)
    await save(plugin_manager, first, clustered(rng, 6))
    newest = await seed.article("newest")
    await save(plugin_manager, await seed.images(newest, 6), clustered(rng, 6))
    query = clustered(rng, 1)[0]
    assert len(await index.search(MODEL, query, 100)) == 12  # the index has read every stamp

    await delete_images(newest)
    later = [await seed.image(kept, position) for position in range(7, 10)]
    await save(plugin_manager, later, clustered(rng, 3))
    answer = await index.search(MODEL, query, 100)
    assert {i for i, _ in answer} == set(first + later)
    assert [i for i, _ in answer] == [i for i, _ in await brute(query, 100)]


async def test_a_resubmitted_vector_after_deletes_replaces_the_held_one(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(6)
    index = ExactIndex(VectorSettings())
    kept = await seed.article("kept")
    images = await seed.images(kept, 6)
    await save(plugin_manager, images, clustered(rng, 6))
    newest = await seed.article("newest")
    await save(plugin_manager, await seed.images(newest, 4), clustered(rng, 4))
    query = clustered(rng, 1)[0]
    await index.search(MODEL, query, 100)

    await delete_images(newest)
    await save(plugin_manager, [images[0]], query[None, :])  # now the best match by far
    answer = await index.search(MODEL, query, 100)
    assert answer[0] == (images[0], pytest.approx(1.0, abs=1e-5))
    assert [i for i, _ in answer] == [i for i, _ in await brute(query, 100)]


async def test_placement_after_deletes_sees_later_vectors(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(7)
    index = ExactIndex(VectorSettings(), block_rows=4)
    job = NeighboursJob(MODEL, k=K, lease=JobLease("neighbours", "a", ttl_s=30), index=index)
    runway = await seed.images(await seed.article("runway"), 10)
    vectors = dict(zip(runway, clustered(rng, 10), strict=True))
    await save(plugin_manager, runway, np.stack([vectors[i] for i in runway]))
    await index.search(MODEL, vectors[runway[0]], 10)  # the held matrix is in use too
    assert await job.run() == 10
    # the newest vectors are of another kind, so no runway list names a deleted image
    street = await seed.article("street", kind="street")
    await save(
        plugin_manager, await seed.images(street, 3, kind="street"), clustered(rng, 3), "street"
    )
    assert await job.run() == 3
    await delete_images(street)

    later = await seed.images(await seed.article("later"), 4)
    vectors.update(zip(later, clustered(rng, 4), strict=True))
    await save(plugin_manager, later, np.stack([vectors[i] for i in later]))
    assert await job.run() == 4
    ids = runway + later
    lists = await stored_lists()
    assert_exact({i: lists[i] for i in ids}, np.array(ids), np.stack([vectors[i] for i in ids]), K)
    answer = await index.search(MODEL, vectors[later[0]], 100, "runway")
    assert answer[0][0] == later[0]
    assert {i for i, _ in answer} == set(ids)


async def test_a_deleted_vector_never_appears_in_answers(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(8)
    index = ExactIndex(VectorSettings())
    kept = await seed.article("kept")
    stays = await seed.images(kept, 5)
    await save(plugin_manager, stays, clustered(rng, 5))
    doomed = await seed.article("doomed")
    gone = await seed.images(doomed, 3)
    vectors = clustered(rng, 3)
    await save(plugin_manager, gone, vectors)
    assert gone[0] in {i for i, _ in await index.search(MODEL, vectors[0], 100)}

    await delete_images(doomed)  # the article stays published; its newest vectors go
    answer = await index.search(MODEL, vectors[0], 100)
    assert {i for i, _ in answer} == set(stays)
    assert [i for i, _ in answer] == [i for i, _ in await brute(vectors[0], 100)]


OTHER_PROCESS = """
import asyncio, sys
import numpy as np
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Image
from rk.server.similarity.embeddings import ModelInfo, submit

async def main(dsn, doomed, kept):
    engine = await connect(dsn)
    try:
        await Image.delete().where(Image.article_id == doomed)
        rows = [Image(article_id=kept, role="look", position=n, kind="runway", key=f"k{n}")
                for n in (11, 12)]
        await Image.insert(*rows)
        ids = [int(r["id"]) for r in await Image.select(Image.id).where(Image.position > 10)]
        items = [EmbeddingVector(kind="runway", image_id=i, vector=[1.0] * DIM) for i in ids]
        await submit(EmbeddingSubmit(items=items), ModelInfo(model_id=MODEL, dim=DIM),
                     new_plugin_manager(load=False), failure_cap=3)
        print(",".join(map(str, ids)))
    finally:
        await close(engine)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
""".replace("DIM", str(DIM)).replace("MODEL", repr(MODEL))


async def test_another_process_deleting_and_saving_shows_on_the_next_query(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(9)
    index = ExactIndex(VectorSettings())
    kept = await seed.article("kept")
    stays = await seed.images(kept, 4)
    await save(plugin_manager, stays, clustered(rng, 4))
    doomed = await seed.article("doomed")
    await save(plugin_manager, await seed.images(doomed, 4), clustered(rng, 4))
    query = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    assert len(await index.search(MODEL, query, 100)) == 8

    other = await asyncio.create_subprocess_exec(
        sys.executable, "-c", OTHER_PROCESS, db, str(doomed), str(kept), stdout=PIPE
    )
    out, _ = await other.communicate()
    assert other.returncode == 0
    added = [int(i) for i in out.decode().split(",")]
    answer = await index.search(MODEL, query, 100)
    assert {i for i, _ in answer} == set(stays + added)
    assert [s for _, s in answer[:2]] == pytest.approx([1.0, 1.0], abs=1e-5)
