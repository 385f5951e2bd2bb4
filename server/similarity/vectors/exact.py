"""The ``exact`` vector index: the vectors held in this process, exact answers.

Search is ``SearchIndex`` (the published vectors of a model, kept in step with the database
by ``change_seq``); placement runs the new vectors past every stored vector of the kind
(``Placement``), held in ``StoredVectors`` (every status, followed the same way) instead
of read from the database on every batch, so the stored lists stay the exact top-K. The
default on SQLite, and the fallback on a PostgreSQL without pgvector.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import numpy as np

from rk.core.api.vector_indexes import (
    Floats,
    Heartbeat,
    Ids,
    Placed,
    Progress,
    Scope,
    Scored,
)
from rk.core.config import VectorSettings
from rk.server.similarity.neighbour_lists import Thresholds
from rk.server.similarity.neighbour_thresholds import HELD
from rk.server.similarity.neighbours import BLOCK_ROWS, SKIP, Placement
from rk.server.similarity.repository.vector_copies import stored_models
from rk.server.similarity.search_index import SearchIndexes
from rk.server.similarity.stored_vectors import StoredVectors


class ExactIndex:
    """Exact top-K and exact placement from in-process matrices."""

    name: ClassVar[str] = "exact"
    schemes: ClassVar[tuple[str, ...]] = ("sqlite", "postgresql")

    def __init__(self, settings: VectorSettings, block_rows: int = BLOCK_ROWS) -> None:
        self.settings = settings
        self.block_rows = block_rows
        self.indexes = SearchIndexes()
        self.stored: dict[str, StoredVectors] = {}

    async def open(self) -> str | None:
        """Nothing to prepare: vectors load on the first query."""
        return None

    async def search(
        self,
        model: str,
        query: Floats,
        k: int,
        kind: str | None = None,
        within: Scope | None = None,
    ) -> Scored:
        """The exact top-``k`` published images, of ``within``'s articles when given (see
        ``SearchIndex.search``)."""
        return await self.indexes.of(model).search(query, k, kind, within)

    async def place(
        self,
        model: str,
        kind: str,
        ids: Ids,
        vectors: Floats,
        k: int,
        heartbeat: Heartbeat | None = None,
    ) -> Placed:
        """One pass over every stored vector of ``kind``, brought up to date with the
        database first, ``block_rows`` at a time: exact lists and reverse pairs."""
        stored = self.stored.get(model)
        if stored is None:
            stored = self.stored[model] = StoredVectors(model)
        await stored.refresh()
        placement = Placement(ids, vectors, k)
        thresholds = await HELD.get(model, k)
        with stored.reading():
            for part, part_ids in stored.parts(kind, vectors.shape[1]):
                for start in range(0, len(part_ids), self.block_rows):
                    span = slice(start, start + self.block_rows)
                    await asyncio.to_thread(
                        _add_block, placement, thresholds, ids, part_ids[span], part[span]
                    )
                    if heartbeat is not None:
                        await heartbeat()
        return Placed(placement.lists(), placement.reverse())

    async def reindex(self, model: str | None = None, progress: Progress | None = None) -> int:
        """Nothing is stored to rebuild: load each model's published vectors once (which
        checks every row decodes) and count them."""
        models = await stored_models() if model is None else [model]
        total = 0
        for name in models:
            index = self.indexes.of(name)
            await index.refresh()
            total += len(index)
            if progress is not None:
                progress(total, total)
        return total

    def nbytes(self) -> int:
        """The matrices and id arrays held, for search and for placement."""
        searched = sum(index.nbytes() for index in self.indexes.all())
        return searched + sum(stored.nbytes() for stored in self.stored.values())

    async def close(self) -> None:
        """Drop every matrix."""
        self.indexes = SearchIndexes()
        self.stored = {}


def _add_block(
    placement: Placement, thresholds: Thresholds, new_ids: Ids, block_ids: Ids, block: Floats
) -> None:
    """Fold one block in, its rows' limits being their lists' thresholds (the batch's own
    images skipped: their lists are the forward side)."""
    limits = thresholds.of(block_ids)
    limits[np.isin(block_ids, new_ids)] = SKIP
    placement.add_block(block_ids, block, limits)
