"""Every stored vector of a model in this process, kept in step with the database.

The exact index used to place each batch by streaming every stored vector of the kind from
the database (issue 12: 100 new among 100k took 1.65 s as the job on SQLite, 0.21 s as the
same product in memory). The neighbours job runs again and again in the process that holds
its lease, so the vectors are held here instead: per (kind, dim) a ``vector_shards.Shard``
of every stored vector of the model, whatever its article's status (placement considers
every stored image; ``SearchIndex`` holds only the published ones).

It follows ``image_embeddings`` the way ``SearchIndex`` does, with no timing constant:
rows whose ``change_seq`` is above the highest seen, a page at a time in stamp order, with
the ``vector_deletions`` of the same stamps applied first (migrations 0030, 0035, 0036:
stamps are given in commit order, so nothing committed hides below the highest one seen).
A refresh when nothing changed is one statement of two index probes. A row read again is
a re-submitted vector (same row, new stamp; perhaps a new kind or model): it replaces the
held one. To find it, each held row carries its ``image_embeddings.id`` in the shard's
article column (this copy has no use for article ids).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from piccolo.engine.base import Engine

from rk.server.platform.db.sql_rows import engine
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.repository.vector_copies import highest_stamps, stored_rows_after
from rk.server.similarity.vector_shards import Part, Shard
from rk.server.similarity.vector_stamps import catching_up, stamped_pages

log = logging.getLogger(__name__)


class StoredVectors:
    """Every stored vector of one model, for the engine the tables are bound to."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._engine: Engine = engine()
        self._lock = asyncio.Lock()
        self._readers = 0
        self._reset()

    def _reset(self) -> None:
        self.shards: dict[tuple[str, int], Shard] = {}
        self.seen_seq = 0
        self.top_id = 0

    def __len__(self) -> int:
        return sum(len(shard) for shard in self.shards.values())

    def nbytes(self) -> int:
        """Memory held: the matrices and their id arrays."""
        return sum(shard.nbytes() for shard in self.shards.values())

    def parts(self, kind: str, dim: int) -> list[Part]:
        """The held rows of ``kind`` and ``dim`` as (vectors, image ids) views; read them
        inside ``reading()``."""
        shard = self.shards.get((kind, dim))
        return shard.view() if shard is not None else []

    @contextmanager
    def reading(self) -> Iterator[None]:
        """While views are read (across awaits), removals copy rows instead of moving them
        in place, so a concurrent refresh leaves the views intact. (A placement cancelled
        mid-block may leave its thread reading after this ends; its answer is dropped.)"""
        self._readers += 1
        try:
            yield
        finally:
            self._readers -= 1

    async def refresh(self) -> None:
        """Catch up with every change committed before this call (one catch-up at a time;
        state changes only between awaits, so a cancelled one leaves a consistent copy)."""
        async with self._lock:
            if engine() is not self._engine:
                self._engine = engine()
                self._reset()
            top = await highest_stamps()
            if top <= self.seen_seq:
                return
            with catching_up(self, log, "stored vectors", self._reset):
                await self._read_new(top)

    async def _read_new(self, top: int) -> None:
        """Apply the deletions and rows stamped above the highest stamp seen, up to ``top``
        or further, a page at a time (as ``SearchIndex._read_new``: a page's deletions go
        first, since a live row of an image is stamped after its previous row's deletion)."""
        async for page, deleted, upto in stamped_pages(
            stored_rows_after, self.model, self.seen_seq, top
        ):
            self._apply(page, deleted)
            self.seen_seq = upto

    def _apply(self, page: list[dict[str, Any]], deleted: list[int]) -> None:
        """Drop the deleted images and the rows read again, then add this model's rows."""
        in_place = self._readers == 0
        again = [int(row["id"]) for row in page if int(row["id"]) <= self.top_id]
        for shard in self.shards.values():
            if deleted:
                shard.remove_images(np.array(sorted(deleted), dtype=np.int64), in_place=in_place)
            if again:
                shard.remove_articles(np.array(sorted(again), dtype=np.int64), in_place=in_place)
        groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for row in page:
            if row["model"] == self.model and len(row["vector"] or b"") >= 4:
                key = (str(row["kind"]), len(row["vector"]) // 4)
                groups.setdefault(key, []).append(row)
        for (kind, dim), group in groups.items():
            images, vectors, kept = decode(group, dim)
            row_ids = np.array([int(row["id"]) for row in kept], dtype=np.int64)
            self.shards.setdefault((kind, dim), Shard(dim)).append(images, row_ids, vectors)
        self.top_id = max([self.top_id, *(int(row["id"]) for row in page)])
