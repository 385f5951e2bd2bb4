"""Vectors for the test archive from the tiny CLIP, saved through the embeddings service.

Every image gets a vector, unpublished ones too, so tests can check that those never
appear among similar looks or search results. The backend's neighbours job (running
wherever the backend runs) places them; ``wait_placed`` waits for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping

import pluggy

from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.tables import Image, ImageEmbedding
from rk.server.similarity.embeddings import ModelInfo, submit
from tests.integration.public.archive import Archive
from tests.models.samples import TINY_CLIP


def tiny_clip() -> ClipEmbedder:
    """The tiny CLIP of tests/models, on the CPU."""
    return ClipEmbedder({"model": str(TINY_CLIP), "batch": 8, "concurrency": 1})


async def embed_archive(
    archive: Archive, pm: pluggy.PluginManager, pictures: Mapping[int, bytes] | None = None
) -> str:
    """Save a vector for every picture of ``archive``, or for ``pictures`` (image id to the
    picture embedded for it); the model id."""
    embedder = tiny_clip()
    chosen = archive.pictures if pictures is None else pictures
    ids = sorted(chosen)
    result = await asyncio.to_thread(embedder.embed_images, [chosen[i] for i in ids])
    kinds = {int(r["id"]): str(r["kind"]) for r in await Image.select(Image.id, Image.kind)}
    items = [
        EmbeddingVector(kind=kinds[ids[i]], image_id=ids[i], vector=vector)
        for i, vector in zip(result.indexes, result.vectors, strict=True)
    ]
    model = ModelInfo(model_id=embedder.model_id, dim=embedder.dim)
    saved = await submit(EmbeddingSubmit(items=items), model, pm, failure_cap=3)
    assert saved.saved == len(ids), saved
    return embedder.model_id


async def wait_placed(timeout_s: float = 60) -> None:
    """Until the backend's neighbours job has placed every vector."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await ImageEmbedding.count().where(ImageEmbedding.neighbours_at == 0) == 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the neighbours job did not place every vector")
