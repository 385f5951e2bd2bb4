"""The exact index under concurrent writers in two other processes, on SQLite and PostgreSQL.

Each writer saves vectors through rk's embeddings service in small batches and appends the
image ids of every batch to a file once its transaction has committed. Meanwhile this
process queries the index over and over, reading the file *before* each query: every
committed vector of a published image must be in the answer (visible on the next query,
always), and no image of an unpublished article may be (this process unpublishes one
half-way).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np

from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Article
from rk.server.similarity.vectors.exact import ExactIndex
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import DIM, MODEL

WRITER = """
import asyncio, sys
import numpy as np
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.engine import close, connect
from rk.server.similarity.embeddings import ModelInfo, submit

async def main(dsn, log, seed, ids):
    engine = await connect(dsn)
    rng = np.random.default_rng(seed)
    pm = new_plugin_manager(load=False)
    try:
        for start in range(0, len(ids), 3):
            batch = ids[start : start + 3]
            items = [EmbeddingVector(kind="runway", image_id=i,
                                     vector=rng.standard_normal(DIM).tolist()) for i in batch]
            await submit(EmbeddingSubmit(items=items), ModelInfo(model_id=MODEL, dim=DIM), pm,
                         failure_cap=3)
            with open(log, "a") as out:
                out.write(" ".join(map(str, batch)) + "\\n")
    finally:
        await close(engine)

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]),
                 [int(i) for i in sys.argv[4].split(",")]))
""".replace("DIM", str(DIM)).replace("MODEL", repr(MODEL))


def committed(logs: list[Path]) -> set[int]:
    """Image ids whose vectors the writers have committed so far."""
    done: set[int] = set()
    for log in logs:
        if log.exists():
            for line in log.read_text().split("\n")[:-1]:  # the last may be half written
                done.update(int(i) for i in line.split())
    return done


async def test_committed_vectors_show_on_the_next_query_and_unpublished_never(
    any_dsn: str, tmp_path: Path
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        stays = await seed.article("stays")
        leaves = await seed.article("leaves")
        hidden = await seed.article("hidden", status="pending")
        images = {article: await seed.images(article, 60) for article in (stays, leaves, hidden)}
        everything = sorted(i for ids in images.values() for i in ids)
        halves = [everything[0::2], everything[1::2]]  # each writer touches every article
        logs = [tmp_path / "a.log", tmp_path / "b.log"]
        writers = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", WRITER, any_dsn, str(log), str(n), ",".join(map(str, half))
            )
            for n, (log, half) in enumerate(zip(logs, halves, strict=True))
        ]
        index = ExactIndex(VectorSettings())
        query = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
        published = set(images[stays] + images[leaves])
        checks = 0
        while checks < 5 or any(writer.returncode is None for writer in writers):
            seen = committed(logs)
            answer = {i for i, _ in await index.search(MODEL, query, 1000)}
            assert seen & published <= answer  # committed before the query: visible
            assert answer <= published  # never an unpublished one
            checks += 1
            if checks == 3:
                await Article.update({Article.status: "rejected"}).where(Article.id == leaves)
                published -= set(images[leaves])
        assert [await writer.wait() for writer in writers] == [0, 0]
        assert committed(logs) == set(everything)
        answer = {i for i, _ in await index.search(MODEL, query, 1000)}
        assert answer == published == set(images[stays])
    finally:
        await close(engine)
