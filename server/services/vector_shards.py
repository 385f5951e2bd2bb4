"""In-memory float32 matrices of unit vectors, and exact top-K by one matrix-vector product.

A ``Shard`` holds the rows of one (model, kind, dim): vectors in blocks of at most
``BLOCK_ROWS`` rows, each row with its image id and article id. Blocks let rows be appended
without copying the whole matrix, and removed by rewriting only the blocks they sit in.

Readers take ``Shard.view()`` — views of the filled rows — and compute outside any lock:
the filled rows of a block array are never written again (appends go past them, removals
and growth build new arrays), so a view stays valid while the shard changes.
"""

from __future__ import annotations

import numpy as np

from rk.server.services.neighbours import Floats, Ids

BLOCK_ROWS = 16384
"""Rows per block: 32 MiB of 512-d float32; a removal rewrites at most this much per block."""
MIN_ROWS = 256
"""The first allocation of a new tail block; it doubles up to ``BLOCK_ROWS`` as rows arrive."""

Part = tuple[Floats, Ids]
"""The filled rows of one block: (vectors, image ids)."""


class _Block:
    """Rows with spare capacity at the end: ``vectors[:size]`` are filled."""

    __slots__ = ("articles", "images", "size", "vectors")

    def __init__(self, dim: int, capacity: int) -> None:
        self.vectors: Floats = np.empty((capacity, dim), dtype=np.float32)
        self.images: Ids = np.empty(capacity, dtype=np.int64)
        self.articles: Ids = np.empty(capacity, dtype=np.int64)
        self.size = 0

    @classmethod
    def of(cls, rows: list[tuple[_Block, np.ndarray]], dim: int) -> _Block:
        """A new block, exactly as big as needed, of the selected rows of other blocks."""
        total = sum(len(index) for _, index in rows)
        block = cls(dim, total)
        for source, index in rows:
            block.put(source.images[index], source.articles[index], source.vectors[index])
        return block

    @property
    def capacity(self) -> int:
        return len(self.images)

    def put(self, images: Ids, articles: Ids, vectors: Floats) -> None:
        """Fill the next rows (the caller checked there is room)."""
        end = self.size + len(images)
        self.vectors[self.size : end] = vectors
        self.images[self.size : end] = images
        self.articles[self.size : end] = articles
        self.size = end

    def filled(self) -> np.ndarray:
        return np.arange(self.size)

    def nbytes(self) -> int:
        return self.vectors.nbytes + self.images.nbytes + self.articles.nbytes


class Shard:
    """The vectors of one (model, kind, dim), with their image and article ids."""

    def __init__(self, dim: int, block_rows: int = BLOCK_ROWS) -> None:
        self.dim = dim
        self.block_rows = block_rows
        self.blocks: list[_Block] = []

    def __len__(self) -> int:
        return sum(block.size for block in self.blocks)

    def nbytes(self) -> int:
        """Bytes allocated by the matrix and the id arrays, spare tail rows included."""
        return sum(block.nbytes() for block in self.blocks)

    def view(self) -> list[Part]:
        """The filled rows, block by block, as views that later changes leave intact."""
        return [(b.vectors[: b.size], b.images[: b.size]) for b in self.blocks if b.size]

    def append(self, images: Ids, articles: Ids, vectors: Floats) -> None:
        """Add rows at the end (images must not be in the shard already)."""
        done = 0
        while done < len(images):
            tail = self._tail(len(images) - done)
            take = min(len(images) - done, tail.capacity - tail.size)
            rows = slice(done, done + take)
            tail.put(images[rows], articles[rows], vectors[rows])
            done += take

    def _tail(self, wanted: int) -> _Block:
        """A last block with room for at least one row (grown or started as needed)."""
        tail = self.blocks[-1] if self.blocks else None
        if tail is not None and tail.size < tail.capacity:
            return tail
        if tail is None or tail.capacity >= self.block_rows:
            block = _Block(self.dim, min(self.block_rows, max(MIN_ROWS, wanted)))
            self.blocks.append(block)
            return block
        limit = self.block_rows
        grown = _Block(self.dim, min(limit, max(2 * tail.capacity, tail.size + wanted)))
        grown.put(tail.images[: tail.size], tail.articles[: tail.size], tail.vectors[: tail.size])
        self.blocks[-1] = grown
        return grown

    def remove_articles(self, articles: Ids) -> int:
        """Drop every row of these articles; how many rows went."""
        if len(articles) == 0 or not self.blocks:
            return 0
        removed = 0
        kept: list[_Block] = []
        for block in self.blocks:
            gone = np.isin(block.articles[: block.size], articles)
            count = int(gone.sum())
            if count == 0:
                kept.append(block)
                continue
            removed += count
            if count < block.size:
                kept.append(_Block.of([(block, np.flatnonzero(~gone))], self.dim))
        self.blocks = self._merged(kept)
        return removed

    def _merged(self, blocks: list[_Block]) -> list[_Block]:
        """Neighbours that fit in one block, joined when one is under half full (removals
        shrink blocks; this keeps their number near rows / ``block_rows``)."""
        out: list[_Block] = []
        for block in blocks:
            last = out[-1] if out else None
            if (
                last is not None
                and min(last.size, block.size) < self.block_rows // 2
                and last.size + block.size <= self.block_rows
            ):
                out[-1] = _Block.of([(last, last.filled()), (block, block.filled())], self.dim)
                continue
            out.append(block)
        return out


def top_k(parts: list[Part], query: Floats, k: int) -> list[tuple[int, float]]:
    """The ``k`` best rows of ``parts`` for a unit ``query``: (image id, cosine), score
    descending then image id ascending (the neighbours job's order)."""
    sizes = [len(ids) for _, ids in parts]
    total = sum(sizes)
    if total == 0 or k < 1:
        return []
    offsets = np.cumsum([0, *sizes])
    scores = np.empty(total, dtype=np.float32)
    for (vectors, _), lo, hi in zip(parts, offsets[:-1], offsets[1:], strict=True):
        np.matmul(vectors, query, out=scores[lo:hi])
    if k < total:
        kth = scores[np.argpartition(scores, total - k)[total - k]]
        picked = np.flatnonzero(scores >= kth)  # every tie with the k-th, for the id order
    else:
        picked = np.arange(total)
    part_of = np.searchsorted(offsets, picked, side="right") - 1
    ids = np.empty(len(picked), dtype=np.int64)
    for part in np.unique(part_of):
        here = part_of == part
        ids[here] = parts[part][1][picked[here] - offsets[part]]
    chosen = scores[picked]
    order = np.lexsort((ids, -chosen))[:k]
    return [(int(i), float(s)) for i, s in zip(ids[order], chosen[order], strict=True)]
