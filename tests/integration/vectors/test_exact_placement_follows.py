"""Exact placement after another process saved, re-submitted and deleted vectors.

The exact index holds every stored vector in this process between placements. Another
process writes to the same database meanwhile: the next placement here must see exactly
the database's current set of vectors (new ones in, re-submitted ones with their new
vector, deleted ones out), and a deleted image must never enter a list. Real SQLite and
PostgreSQL, the other process a real one.
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
from rk.server.platform.db.tables import ImageEmbedding
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.neighbours_job import NeighboursJob
from rk.server.similarity.vectors.exact import ExactIndex
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import DIM, MODEL, brute, clustered, save
from tests.integration.vectors.test_changes_after_deletes import stored_lists
from tests.unit.server.brute_force import brute_force

K = 5

OTHER_PROCESS = """
import asyncio, sys
import numpy as np
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Image
from rk.server.similarity.embeddings import ModelInfo, submit

async def main(dsn, doomed, kept, moved):
    engine = await connect(dsn)
    rng = np.random.default_rng(11)
    try:
        await Image.delete().where(Image.article_id == doomed)
        await Image.insert(*[Image(article_id=kept, role="look", position=n, kind="runway",
                                   key=f"new{n}") for n in (51, 52, 53)])
        added = [int(r["id"]) for r in await Image.select(Image.id).where(Image.position > 50)]
        items = [EmbeddingVector(kind="runway", image_id=i,
                                 vector=rng.standard_normal(DIM).tolist())
                 for i in added + moved]
        await submit(EmbeddingSubmit(items=items), ModelInfo(model_id=MODEL, dim=DIM),
                     new_plugin_manager(load=False), failure_cap=3)
        print(",".join(map(str, added)))
    finally:
        await close(engine)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                 [int(i) for i in sys.argv[4].split(",")]))
""".replace("DIM", str(DIM)).replace("MODEL", repr(MODEL))


async def current_vectors() -> tuple[list[int], np.ndarray]:
    """Every runway vector the database holds now: (image ids, matrix)."""
    rows = await ImageEmbedding.select(ImageEmbedding.image_id, ImageEmbedding.vector).where(
        (ImageEmbedding.model == MODEL) & (ImageEmbedding.kind == "runway")
    )
    ids, matrix, _ = decode(list(rows), DIM)
    return ids.tolist(), matrix


async def test_placement_sees_what_another_process_saved_resubmitted_and_deleted(
    any_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        rng = np.random.default_rng(12)
        kept = await seed.article("kept")
        hidden = await seed.article("hidden", status="pending")  # placed among too
        doomed = await seed.article("doomed")
        images = {a: await seed.images(a, 12) for a in (kept, hidden, doomed)}
        for article_images in images.values():
            await save(plugin_manager, article_images, clustered(rng, 12))
        index = ExactIndex(VectorSettings(), block_rows=5)
        lease = JobLease("neighbours", "a", ttl_s=30)
        job = NeighboursJob(MODEL, k=K, lease=lease, index=index, batch=10)
        assert await job.run() == 36
        held = index.nbytes()
        assert held >= 36 * DIM * 4  # the stored vectors are held between placements

        moved = images[kept][:2]
        other = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            OTHER_PROCESS,
            any_dsn,
            str(doomed),
            str(kept),
            ",".join(map(str, moved)),
            stdout=PIPE,
        )
        out, _ = await other.communicate()
        assert other.returncode == 0
        added = [int(i) for i in out.decode().split(",")]
        ids, vectors = await current_vectors()
        assert set(ids) == set(images[kept] + images[hidden] + added)
        by_id = dict(zip(ids, vectors, strict=True))

        # one probe with room for everyone: its list is exactly the database's current set
        probe = moved[0]
        placed = await index.place(MODEL, "runway", np.array([probe]), by_id[probe][None, :], 100)
        want = [(i, s) for i, s in await brute(by_id[probe], 101, published=False) if i != probe]
        assert [i for i, _ in placed.lists[probe]] == [i for i, _ in want]
        assert [s for _, s in placed.lists[probe]] == pytest.approx([s for _, s in want], abs=1e-5)
        assert set(placed.reverse) <= set(ids) - {probe}

        # the job places the new, the re-submitted and the lists that named them, exactly
        waiting = await ImageEmbedding.select(ImageEmbedding.image_id).where(
            ImageEmbedding.neighbours_at == 0
        )
        owners = {int(row["image_id"]) for row in waiting}
        assert set(added + moved) <= owners
        assert await job.run() == len(owners)
        lists = await stored_lists()
        truth = brute_force(ids, vectors, K)
        for owner in owners:
            assert [n for n, _ in lists[owner]] == truth[owner], owner
        # no deleted image in any list (SQLite may give a deleted image's id to a new one)
        assert set(lists) <= set(ids)
        assert {n for entries in lists.values() for n, _ in entries} <= set(ids)
        assert index.nbytes() >= len(ids) * DIM * 4
    finally:
        await close(engine)
