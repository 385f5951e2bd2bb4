"""``embed.inline``: a backend with the model embeds what its ingest worker just stored."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.tables import ImageEmbedding, ImageEmbeddingFailure, ImageNeighbor
from tests.integration.embeddings.backend import TINY_CLIP, embed_backend
from tests.integration.server.helpers import article_of, images_of, show
from tests.integration.server.images import jpeg, serve_images


async def wait_for(count: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        placed = await ImageEmbedding.count().where(ImageEmbedding.neighbours_at > 0)
        if placed >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {count} vectors embedded and placed inline")


@pytest.mark.parametrize("inline", [True, False])
async def test_ingested_images_are_embedded_in_the_backend(
    tmp_path: Path, plugin_manager: RkPluginManager, inline: bool
) -> None:
    with serve_images() as server:
        urls = [server.add(f"/look-{n}.jpg", jpeg(n)) for n in range(5)]
        async with embed_backend(
            tmp_path, plugin_manager, allow=server.allow, inline=inline
        ) as backend:
            payload = show("spring-2025/inline", urls)
            job = await backend.ingest_and_wait(payload)
            assert job["status"] == "done"
            article = await article_of(payload)
            rows = await images_of(article["id"])
            if not inline:
                await asyncio.sleep(1)
                assert await ImageEmbedding.count() == 0
                return
            await wait_for(5)
            reference = ClipEmbedder({"model": str(TINY_CLIP), "concurrency": 1})
            stored = {r["image_id"]: r["vector"] for r in await ImageEmbedding.select()}
            for row in rows:
                data = await backend.storage.get(row["thumb_key"] or row["key"])
                [expected] = reference.embed_images([data]).vectors
                got = np.frombuffer(stored[row["id"]], dtype="<f4")
                assert got.tolist() == pytest.approx(expected, abs=1e-5)
            assert await ImageNeighbor.count() == 5 * 4
            assert await ImageEmbeddingFailure.count() == 0
