"""Exact top-K cosine neighbours, computed incrementally over streamed blocks of vectors.

Placing new images among the existing ones of a kind is one pass over the stored vectors:

- each block of existing vectors (float32, L2-normalised, a few thousand rows) is
  multiplied with the new vectors, so memory stays bounded however many images exist;
- the forward side keeps, for every new image, its best K so far: after the first block
  only scores at or above the running K-th score are looked at, which costs a compare
  instead of a partition per block;
- the reverse side collects the pairs (existing image, new image) whose score reaches
  the existing image's stored K-th score (its "threshold"): only those lists can change,
  and ``merge_list`` folds the candidates in.

Cosine similarity is symmetric, and every stored list was the exact top-K of the images
that existed when it was last merged, so the union of the old list and the new
candidates holds the new exact top-K. Order within a list: score descending, then
neighbour id ascending, so results are deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ids = npt.NDArray[np.int64]

BLOCK_ROWS = 8192
"""Stored vectors per block: 16 MiB of 512-d float32, a 3 MiB score matrix for 100 new."""
NO_THRESHOLD = -np.inf
"""The threshold of a list with fewer than K entries: every new image is a candidate."""
SKIP = np.inf
"""The threshold of a row that must not get reverse candidates (the new images themselves)."""


def normalised(vectors: npt.ArrayLike) -> Floats:
    """Rows scaled to unit length as float32 (zero rows stay zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)


def _sorted_top(ids: Ids, scores: Floats, k: int) -> tuple[Ids, Floats]:
    """Per row, the ``k`` best (score desc, id asc) of ``ids``/``scores``, padded with -1/-inf."""
    order = np.lexsort((ids, -scores), axis=1)[:, :k]
    top_ids = np.take_along_axis(ids, order, axis=1)
    top_scores = np.take_along_axis(scores, order, axis=1)
    if top_ids.shape[1] < k:
        pad = k - top_ids.shape[1]
        top_ids = np.pad(top_ids, ((0, 0), (0, pad)), constant_values=-1)
        top_scores = np.pad(top_scores, ((0, 0), (0, pad)), constant_values=-np.inf)
    return top_ids, top_scores


@dataclass(frozen=True)
class Reverse:
    """Candidates for existing lists: ``new_ids[i]`` may enter the list of ``owners[i]``."""

    owners: Ids
    new_ids: Ids
    scores: Floats


class Placement:
    """The exact top-K of some new vectors over every block it is shown, plus reverse pairs.

    Args:
        new_ids: the ids of the new images (also present in the blocks, where they are
            skipped as their own neighbour).
        new_vectors: their L2-normalised vectors, one row each.
        k: how many neighbours each list keeps.
    """

    def __init__(self, new_ids: npt.ArrayLike, new_vectors: npt.ArrayLike, k: int) -> None:
        self.new_ids = np.asarray(new_ids, dtype=np.int64)
        self.vectors = np.ascontiguousarray(new_vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or len(self.vectors) != len(self.new_ids):
            raise ValueError("new_vectors must be one row per new id")
        if k < 1:
            raise ValueError("k must be at least 1")
        self.k = k
        count = len(self.new_ids)
        self.ids = np.full((count, k), -1, dtype=np.int64)
        self.scores = np.full((count, k), -np.inf, dtype=np.float32)
        self._row_of = {int(i): row for row, i in enumerate(self.new_ids)}
        self._reverse: list[Reverse] = []

    def add_block(self, ids: npt.ArrayLike, vectors: Floats, thresholds: npt.ArrayLike) -> None:
        """Fold one block of stored vectors in.

        Args:
            ids: the block's image ids.
            vectors: their L2-normalised float32 vectors, one row each.
            thresholds: per row, the K-th score of that image's stored list,
                ``NO_THRESHOLD`` when the list is not full, ``SKIP`` for rows whose list
                must not change (the new images).
        """
        block_ids = np.asarray(ids, dtype=np.int64)
        if len(block_ids) == 0 or len(self.new_ids) == 0:
            return
        scores = self.vectors @ np.asarray(vectors, dtype=np.float32).T
        for col in np.nonzero(np.isin(block_ids, self.new_ids))[0]:
            scores[self._row_of[int(block_ids[col])], col] = -np.inf
        self._forward(block_ids, scores)
        limits = np.asarray(thresholds, dtype=np.float32)
        # a column max over the new vectors rules out most existing rows at once
        cols = np.nonzero(scores.max(axis=0) >= limits)[0]
        if len(cols):
            rows, hits = np.nonzero(scores[:, cols] >= limits[cols][None, :])
            picked = cols[hits]
            self._reverse.append(
                Reverse(
                    owners=block_ids[picked],
                    new_ids=self.new_ids[rows],
                    scores=scores[rows, picked],
                )
            )

    def _forward(self, block_ids: Ids, scores: Floats) -> None:
        """Merge one block's scores into the running top-K of each new vector."""
        k = self.k
        floor = self.scores[:, k - 1]
        # only rows whose best score in this block reaches their K-th so far can change
        todo = np.nonzero(scores.max(axis=1) >= floor)[0]
        if len(todo) == 0:
            return
        sub = scores[todo]
        rows, cols = np.nonzero(sub >= floor[todo][:, None])
        if len(rows) > len(todo) * k * 4:
            take = min(k, sub.shape[1])
            part = np.argpartition(-sub, take - 1, axis=1)[:, :take]
            cand_ids = block_ids[part]
            cand_scores = np.take_along_axis(sub, part, axis=1)
        else:
            counts = np.bincount(rows, minlength=len(todo))
            width = int(counts.max())
            starts = np.cumsum(counts) - counts
            slots = np.arange(len(rows)) - starts[rows]
            cand_ids = np.full((len(todo), width), -1, dtype=np.int64)
            cand_scores = np.full((len(todo), width), -np.inf, dtype=np.float32)
            cand_ids[rows, slots] = block_ids[cols]
            cand_scores[rows, slots] = sub[rows, cols]
        cand_ids = np.where(np.isneginf(cand_scores), -1, cand_ids)
        self.ids[todo], self.scores[todo] = _sorted_top(
            np.concatenate([self.ids[todo], cand_ids], axis=1),
            np.concatenate([self.scores[todo], cand_scores], axis=1),
            k,
        )

    def lists(self) -> dict[int, list[tuple[int, float]]]:
        """Every new image's neighbours, best first, as ``(neighbour_id, score)``."""
        out: dict[int, list[tuple[int, float]]] = {}
        for row, image_id in enumerate(self.new_ids):
            keep = self.ids[row] >= 0
            out[int(image_id)] = [
                (int(i), float(s))
                for i, s in zip(self.ids[row][keep], self.scores[row][keep], strict=True)
            ]
        return out

    def reverse(self) -> dict[int, list[tuple[int, float]]]:
        """Per existing image, the new images that may enter its list, with their scores."""
        out: dict[int, list[tuple[int, float]]] = {}
        for part in self._reverse:
            for owner, new_id, score in zip(
                part.owners.tolist(), part.new_ids.tolist(), part.scores.tolist(), strict=True
            ):
                out.setdefault(owner, []).append((new_id, score))
        return out


def merge_list(
    current: Iterable[tuple[int, float]], candidates: Iterable[tuple[int, float]], k: int
) -> list[tuple[int, float]]:
    """The top ``k`` of a stored list and new candidates; a candidate replaces an equal id."""
    merged = dict(current)
    merged.update(candidates)
    return sorted(merged.items(), key=lambda item: (-item[1], item[0]))[:k]


def threshold_of(entries: list[tuple[int, float]], k: int) -> float:
    """The score a newcomer must reach to enter a list with these entries."""
    return entries[-1][1] if len(entries) >= k else NO_THRESHOLD
