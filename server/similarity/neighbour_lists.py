"""The neighbours job's lists: batches to place, list thresholds, and lists written back.

Lists live in ``image_neighbors`` as one row per entry, ``rank`` 1 being the most
similar; ``score`` is the cosine similarity (float32); their SQL is in
``repository.neighbour_lists``. The stored vectors themselves are held in process by the
exact index (``stored_vectors``), not read here per batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rk.server.platform.db.database import Row
from rk.server.platform.db.public_changes import bump_neighbours
from rk.server.similarity.neighbours import NO_THRESHOLD, Floats, Ids
from rk.server.similarity.repository.neighbour_lists import (
    delete_ranks_past,
    oldest_unplaced,
    rank_scores,
    unplaced_vectors,
    upsert_ranks,
)


def decode(rows: list[dict[str, Any]], dim: int) -> tuple[Ids, Floats, list[dict[str, Any]]]:
    """Ids and a float32 matrix from rows with ``image_id`` and ``vector``; odd widths dropped."""
    kept = [row for row in rows if len(row["vector"]) == dim * 4]
    ids = np.array([int(row["image_id"]) for row in kept], dtype=np.int64)
    if not kept:
        return ids, np.zeros((0, dim), dtype=np.float32), kept
    matrix = np.frombuffer(b"".join(bytes(row["vector"]) for row in kept), dtype="<f4")
    return ids, matrix.reshape(len(kept), dim).astype(np.float32, copy=False), kept


@dataclass(frozen=True)
class Batch:
    """Vectors of one kind waiting to be placed."""

    kind: str
    dim: int
    ids: Ids
    vectors: Floats
    rows: list[dict[str, Any]]


async def next_batch(model: str, limit: int) -> Batch | None:
    """Up to ``limit`` unplaced vectors of the kind of the oldest unplaced one; None if none."""
    first = await oldest_unplaced(model)
    if first is None:
        return None
    kind, dim = first
    rows = await unplaced_vectors(model, kind, dim, limit)
    ids, vectors, kept = decode(rows, dim)
    return Batch(kind=kind, dim=dim, ids=ids, vectors=vectors, rows=kept)


class Thresholds:
    """The K-th stored score of every full list of a model, looked up by block."""

    def __init__(self, ids: Ids, scores: Floats) -> None:
        order = np.argsort(ids)
        self.ids = ids[order]
        self.scores = scores[order]

    @classmethod
    async def load(cls, model: str, k: int) -> Thresholds:
        """Read the rank-``k`` entries (lists shorter than ``k`` have none)."""
        return await rank_scores(model, k, cls._of_rows)

    @classmethod
    def _of_rows(cls, rows: list[Row]) -> Thresholds:
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        scores = np.fromiter((row[1] for row in rows), dtype=np.float32, count=len(rows))
        return cls(ids, scores)

    def of(self, block_ids: Ids) -> Floats:
        """Per block row its threshold; ``NO_THRESHOLD`` where the list is not full."""
        out = np.full(len(block_ids), NO_THRESHOLD, dtype=np.float32)
        if len(self.ids) == 0:
            return out
        pos = np.minimum(np.searchsorted(self.ids, block_ids), len(self.ids) - 1)
        found = self.ids[pos] == block_ids
        out[found] = self.scores[pos[found]]
        return out


def changed_from(old: list[tuple[int, float]], new: list[tuple[int, float]]) -> int:
    """The first 0-based position where two lists differ (``len`` of the shorter if none)."""
    for position, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return position
    return min(len(old), len(new))


async def write_lists(
    model: str,
    lists: dict[int, list[tuple[int, float]]],
    previous: dict[int, list[tuple[int, float]]] | None = None,
) -> None:
    """Inside the caller's transaction: store these lists and move the public counter once.

    With ``previous`` (what is stored now for some owners), only the tail from the first
    changed rank is written: a newcomer entering a list at rank r moves ranks r..K, not
    1..r-1. Ranks are upserted in place (a stored rank's row is updated, not deleted and
    inserted again), so a moved rank touches only the indexes on ``neighbor_id``; ranks
    past the new list's end are deleted, which only a list that got shorter (or whose
    stored length is not known) can have.
    """
    if not lists:
        return
    before = previous or {}
    owners = sorted(lists)
    shorter = [
        (model, owner, len(lists[owner]))
        for owner in owners
        if owner not in before or len(lists[owner]) < len(before[owner])
    ]
    rows = [
        (owner, model, nid, rank, score)
        for owner in owners
        for cut in [changed_from(before.get(owner, []), lists[owner])]
        for rank, (nid, score) in enumerate(lists[owner][cut:], start=cut + 1)
    ]
    if shorter:
        await delete_ranks_past(shorter)
    if rows:
        await upsert_ranks(rows)
    await bump_neighbours()
