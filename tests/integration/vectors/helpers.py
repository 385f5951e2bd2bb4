"""Seeding vectors through rk's save path, and the brute-force answers indexes must give."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pluggy
from piccolo.querystring import QueryString

from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.tables import Image, ImageEmbedding
from rk.server.similarity.embeddings import ModelInfo, submit, vector_bytes
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.neighbours import normalised
from tests.integration.embeddings import seed

MODEL = "m"
DIM = 32
Floats = npt.NDArray[np.float32]


def clustered(rng: np.random.Generator, count: int, centres: int = 8) -> Floats:
    """Unit vectors drawn around a few centres (CLIP vectors cluster; random ones do not)."""
    middle = normalised(rng.standard_normal((centres, DIM)))
    picks = middle[rng.integers(0, centres, count)]
    return normalised(picks + 0.35 * rng.standard_normal((count, DIM)) / np.sqrt(DIM))


async def save(
    pm: pluggy.PluginManager, image_ids: list[int], vectors: Floats, kind: str = "runway"
) -> None:
    """Store vectors through the embeddings service, as ``POST embeddings`` does."""
    items = [
        EmbeddingVector(kind=kind, image_id=i, vector=v.tolist())
        for i, v in zip(image_ids, vectors, strict=True)
    ]
    result = await submit(
        EmbeddingSubmit(items=items), ModelInfo(model_id=MODEL, dim=DIM), pm, failure_cap=3
    )
    assert result.saved == len(items), result.errors


async def bulk(rng: np.random.Generator, count: int) -> list[int]:
    """Vectors written straight into image_embeddings, as an install before pgvector had them."""
    article = await seed.article("before")
    images = await seed.images(article, count)
    await ImageEmbedding.insert(
        *[
            ImageEmbedding(
                image_id=i, model=MODEL, kind="runway", dim=DIM, vector=vector_bytes(v.tolist())
            )
            for i, v in zip(images, clustered(rng, count), strict=True)
        ]
    )
    return images


async def show(
    pm: pluggy.PluginManager,
    rng: np.random.Generator,
    key: str,
    count: int,
    *,
    status: str = "published",
    kind: str = "runway",
) -> tuple[int, list[int]]:
    """An article with ``count`` images, each with a clustered vector saved; (article, images)."""
    article = await seed.article(key, kind=kind, status=status)
    images = await seed.images(article, count, kind=kind)
    await save(pm, images, clustered(rng, count), kind)
    return article, images


async def brute(
    query: Floats, k: int, *, kind: str | None = None, published: bool = True
) -> list[tuple[int, float]]:
    """The exact top-``k`` by reading every vector (published ones, or all of ``kind``)."""
    where = "e.model = {}"
    args: list[object] = [MODEL]
    if published:
        where += " AND a.status = 'published' AND a.deleted_at = 0"
    if kind is not None:
        where += " AND e.kind = {}"
        args.append(kind)
    rows = await Image._meta.db.run_querystring(
        QueryString(
            "SELECT e.image_id, e.vector FROM image_embeddings e"
            " JOIN images i ON i.id = e.image_id JOIN articles a ON a.id = i.article_id"
            f" WHERE {where} ORDER BY e.image_id",
            *args,
        )
    )
    ids, matrix, _ = decode(list(rows), DIM)
    scores = matrix @ query
    order = np.lexsort((ids, -scores))[:k]
    return [(int(ids[i]), float(scores[i])) for i in order]
