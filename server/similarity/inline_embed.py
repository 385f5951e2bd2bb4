"""``embed.inline``: the backend embeds an article's images itself, right after ingest.

For a backend that has the model and the bytes (its own storage), this saves running a
separate ``rk spider embed``. The ``rk_show_ingested`` event queues the article; one task
embeds its images that still lack a vector (thumbnail bytes when there is one) and saves
them through the same submit path as a remote worker, so validation, failure counting
and the neighbours job behave the same. Images it cannot read count as failures.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pluggy

from rk.core import hookimpl
from rk.core.api.embedders import Embedder
from rk.core.api.storage import Storage
from rk.core.api.wire import (
    EmbeddingFailure,
    EmbeddingSubmit,
    EmbeddingSubmitted,
    EmbeddingVector,
    printable,
)
from rk.server.platform.http.errors import one_line
from rk.server.platform.jobs.background import stop_task
from rk.server.similarity.embeddings import ModelInfo, submit
from rk.server.similarity.repository.embeddings import article_images_to_embed

log = logging.getLogger(__name__)


class InlineEmbedder:
    """Embeds the images of each ingested article in this process."""

    def __init__(
        self,
        embedder: Embedder,
        storage: Storage,
        pm: pluggy.PluginManager,
        *,
        failure_cap: int,
        batch: int,
    ) -> None:
        self.embedder = embedder
        self.model = ModelInfo(model_id=embedder.model_id, dim=embedder.dim)
        self.storage = storage
        self.pm = pm
        self.failure_cap = failure_cap
        self.batch = max(1, batch)
        self._queue: asyncio.Queue[int] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    @hookimpl
    def rk_show_ingested(self, show: Any, article_id: int, outcome: str) -> None:
        """Queue the article whose ingest just finished."""
        if article_id > 0:
            self._queue.put_nowait(article_id)

    def start(self) -> None:
        """Start the embedding task in the running loop."""
        self._task = asyncio.create_task(self._loop(), name="rk-inline-embed")

    async def stop(self) -> None:
        """Stop; articles still queued are left to ``rk spider embed``."""
        await stop_task(self._task)

    async def _loop(self) -> None:
        while True:
            article_id = await self._queue.get()
            try:
                await self.embed_article(article_id)
            except Exception:
                log.exception("inline embedding of article %d failed", article_id)

    async def _todo(self, article_id: int) -> list[dict[str, Any]]:
        """The article's images without a vector and below the failure cap."""
        return await article_images_to_embed(article_id, self.model.model_id, self.failure_cap)

    async def embed_article(self, article_id: int) -> EmbeddingSubmitted:
        """Embed and save every image of the article that still needs it."""
        rows = await self._todo(article_id)
        saved = failed = 0
        for start in range(0, len(rows), self.batch):
            answer = await self._embed(rows[start : start + self.batch])
            saved, failed = saved + answer.saved, failed + answer.failed
        if rows:
            log.info("inline embedding: article %d: saved %d, failed %d", article_id, saved, failed)
        return EmbeddingSubmitted(saved=saved, failed=failed)

    async def _embed(self, rows: list[dict[str, Any]]) -> EmbeddingSubmitted:
        failures: list[EmbeddingFailure] = []
        readable: list[tuple[dict[str, Any], bytes]] = []
        for row in rows:
            try:
                readable.append((row, await self.storage.get(row["thumb_key"] or row["key"])))
            except OSError as exc:
                failures.append(_failure(row, f"storage: {one_line(str(exc))}"))
        result = await asyncio.to_thread(self.embedder.embed_images, [data for _, data in readable])
        items = [
            EmbeddingVector(kind=readable[i][0]["kind"], image_id=readable[i][0]["id"], vector=v)
            for i, v in zip(result.indexes, result.vectors, strict=True)
        ]
        failures += [_failure(readable[i][0], "not a decodable image") for i in result.skipped]
        body = EmbeddingSubmit(items=items, failures=failures)
        return await submit(body, self.model, self.pm, failure_cap=self.failure_cap)


def _failure(row: dict[str, Any], error: str) -> EmbeddingFailure:
    return EmbeddingFailure(kind=row["kind"], image_id=row["id"], error=printable(error))
