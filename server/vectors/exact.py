"""The ``exact`` vector index: every published vector in this process, exact answers.

Search is ``SearchIndex`` (a float32 matrix per model, kept in step with the database by
``change_seq``); placement streams the stored vectors of a kind from the database past the
new ones (``Placement``), so the stored lists stay the exact top-K. The default on SQLite,
and the fallback on a PostgreSQL without pgvector.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import numpy as np

from rk.core.config import VectorSettings
from rk.core.vector_indexes import Floats, Heartbeat, Ids, Placed, Progress, Scored
from rk.server.services.neighbour_lists import Thresholds, blocks
from rk.server.services.neighbours import BLOCK_ROWS, SKIP, Placement
from rk.server.services.search_index import SearchIndexes
from rk.server.vectors.db import rows


class ExactIndex:
    """Exact top-K from an in-process matrix; exact placement over streamed blocks."""

    name: ClassVar[str] = "exact"
    schemes: ClassVar[tuple[str, ...]] = ("sqlite", "postgresql")

    def __init__(self, settings: VectorSettings, block_rows: int = BLOCK_ROWS) -> None:
        self.settings = settings
        self.block_rows = block_rows
        self.indexes = SearchIndexes()

    async def open(self) -> str | None:
        """Nothing to prepare: vectors load on the first query."""
        return None

    async def search(self, model: str, query: Floats, k: int, kind: str | None = None) -> Scored:
        """The exact top-``k`` published images (see ``SearchIndex.search``)."""
        return await self.indexes.of(model).search(query, k, kind)

    async def place(
        self,
        model: str,
        kind: str,
        ids: Ids,
        vectors: Floats,
        k: int,
        heartbeat: Heartbeat | None = None,
    ) -> Placed:
        """One pass over every stored vector of ``kind``: exact lists and reverse pairs."""
        placement = Placement(ids, vectors, k)
        thresholds = await Thresholds.load(model, k)
        async for block_ids, block in blocks(model, kind, vectors.shape[1], self.block_rows):
            limits = thresholds.of(block_ids)
            limits[np.isin(block_ids, ids)] = SKIP
            await asyncio.to_thread(placement.add_block, block_ids, block, limits)
            if heartbeat is not None:
                await heartbeat()
        return Placed(placement.lists(), placement.reverse())

    async def reindex(self, model: str | None = None, progress: Progress | None = None) -> int:
        """Nothing is stored to rebuild: load each model's published vectors once (which
        checks every row decodes) and count them."""
        if model is None:
            found = await rows("SELECT DISTINCT model FROM image_embeddings ORDER BY model")
            models = [str(row["model"]) for row in found]
        else:
            models = [model]
        total = 0
        for name in models:
            index = self.indexes.of(name)
            await index.refresh()
            total += len(index)
            if progress is not None:
                progress(total, total)
        return total

    def nbytes(self) -> int:
        """The matrices and id arrays held."""
        return sum(index.nbytes() for index in self.indexes.all())

    async def close(self) -> None:
        """Drop every matrix."""
        self.indexes = SearchIndexes()
