"""In-memory float32 matrices of unit vectors, and exact top-K by one matrix-vector product.

A ``Shard`` holds the rows of one (model, kind, dim): vectors in blocks of at most
``BLOCK_BYTES``, each row with its image id and article id. Blocks let rows be appended
without copying the whole matrix, and removed by rewriting only the blocks they sit in.
They are big because each block is one BLAS call, and on a busy machine every call pays
for waking BLAS threads: 16,384-row blocks cost 40 % more than one product over the whole
matrix, 131,072-row blocks (256 MiB at 512-d) about 5 %.

Readers take ``Shard.view()`` — views of the filled rows — and compute outside any lock.
Appends only write past the filled rows, so a view stays valid while rows arrive. A
removal fills the removed rows with the block's last ones in place (cheap: no new memory,
a copy of as many rows as left) only when the caller says no view is in use; otherwise
it builds new blocks and leaves the old arrays to the views that hold them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rk.server.similarity.neighbours import Floats, Ids

BLOCK_BYTES = 256 * 2**20
"""Vector bytes per block (131,072 rows at 512-d); a removal rewrites at most this per block."""

Part = tuple[Floats, Ids]
"""The filled rows of one block: (vectors, image ids)."""
Mask = npt.NDArray[np.bool_]
"""Which rows of a part a scoped search keeps."""
GATHER_SHARE = 0.25
"""A part whose mask keeps at most this share of its rows is scored on a copy of just those
rows (less work than the whole product); above it, the whole part is scored and the rest
masked out, which copies nothing."""


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
        block = cls(dim, sum(len(index) for _, index in rows))
        for source, index in rows:
            end = block.size + len(index)
            out = block.vectors[block.size : end]
            np.take(source.vectors, index, axis=0, out=out, mode="clip")
            block.images[block.size : end] = source.images[index]
            block.articles[block.size : end] = source.articles[index]
            block.size = end
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

    def drop(self, rows: np.ndarray) -> None:
        """Remove these filled rows (ascending) in place: the last rows move into them."""
        size = self.size - len(rows)
        holes = rows[rows < size]
        tail = np.setdiff1d(np.arange(size, self.size), rows, assume_unique=True)
        self.vectors[holes] = self.vectors[tail]
        self.images[holes] = self.images[tail]
        self.articles[holes] = self.articles[tail]
        self.size = size

    def filled(self) -> np.ndarray:
        return np.arange(self.size)

    def nbytes(self) -> int:
        """Bytes of the filled rows: the rest is address space the OS backs only once
        written (``np.empty`` does not touch it)."""
        return self.size * (self.vectors.shape[1] * 4 + 16)


class Shard:
    """The vectors of one (model, kind, dim), with their image and article ids."""

    def __init__(self, dim: int, block_rows: int = 0) -> None:
        self.dim = dim
        self.block_rows = block_rows or max(1024, BLOCK_BYTES // (4 * dim))
        self.blocks: list[_Block] = []

    def __len__(self) -> int:
        return sum(block.size for block in self.blocks)

    def nbytes(self) -> int:
        """Memory of the rows held: vectors and ids."""
        return sum(block.nbytes() for block in self.blocks)

    def view(self) -> list[Part]:
        """The filled rows, block by block, as views that later changes leave intact."""
        return [(b.vectors[: b.size], b.images[: b.size]) for b in self.blocks if b.size]

    def masks(self, articles: Ids) -> list[Mask]:
        """Per part of ``view()``, which rows belong to these articles (sorted ids)."""
        return [np.isin(b.articles[: b.size], articles) for b in self.blocks if b.size]

    def append(self, images: Ids, articles: Ids, vectors: Floats) -> None:
        """Add rows at the end (images must not be in the shard already).

        A new last block is made full size at once: its unwritten rows cost no memory, and
        appending never copies rows already held.
        """
        done = 0
        while done < len(images):
            tail = self.blocks[-1] if self.blocks else None
            if tail is None or tail.size == tail.capacity:
                tail = _Block(self.dim, self.block_rows)
                self.blocks.append(tail)
            take = min(len(images) - done, tail.capacity - tail.size)
            rows = slice(done, done + take)
            tail.put(images[rows], articles[rows], vectors[rows])
            done += take

    def remove_articles(self, articles: Ids, *, in_place: bool = False) -> int:
        """Drop every row of these articles; how many rows went.

        ``in_place`` only when no view of this shard is being read (see the module doc).
        """
        return self._remove("articles", articles, in_place)

    def remove_images(self, images: Ids, *, in_place: bool = False) -> int:
        """Drop the rows of these images; how many rows went (``in_place`` as above)."""
        return self._remove("images", images, in_place)

    def _remove(self, column: str, values: Ids, in_place: bool) -> int:
        if len(values) == 0 or not self.blocks:
            return 0
        removed = 0
        kept: list[_Block] = []
        for block in self.blocks:
            gone = np.isin(getattr(block, column)[: block.size], values)
            count = int(gone.sum())
            if count == 0:
                kept.append(block)
                continue
            removed += count
            if count == block.size:
                continue
            if in_place:
                block.drop(np.flatnonzero(gone))
                kept.append(block)
            else:
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


def top_k(
    parts: list[Part], query: Floats, k: int, masks: list[Mask] | None = None
) -> list[tuple[int, float]]:
    """The ``k`` best rows of ``parts`` for a unit ``query``: (image id, cosine), score
    descending then image id ascending (the neighbours job's order).

    ``masks`` (one per part: which rows count) filter inside the scan, before the top-K
    partition, so ``min(k, rows kept)`` rows come back at any selectivity.
    """
    parts, dense = masked(parts, masks)
    sizes = [len(ids) for _, ids in parts]
    total = sum(sizes)
    if total == 0 or k < 1:
        return []
    offsets = np.cumsum([0, *sizes])
    scores = np.empty(total, dtype=np.float32)
    for (vectors, _), lo, hi in zip(parts, offsets[:-1], offsets[1:], strict=True):
        np.matmul(vectors, query, out=scores[lo:hi])
    for part, mask in dense.items():
        scores[offsets[part] : offsets[part + 1]][~mask] = -np.inf
    k = min(k, total - sum(int((~mask).sum()) for mask in dense.values()))
    if k < 1:
        return []
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


def masked(parts: list[Part], masks: list[Mask] | None) -> tuple[list[Part], dict[int, Mask]]:
    """``parts`` with their sparsely kept rows gathered (``GATHER_SHARE``), and the masks of
    the parts kept whole (by position), to apply to their scores."""
    if masks is None:
        return parts, {}
    out: list[Part] = []
    dense: dict[int, Mask] = {}
    for (vectors, ids), mask in zip(parts, masks, strict=True):
        kept = int(mask.sum())
        if kept == 0:
            continue
        if kept <= GATHER_SHARE * len(ids):
            rows = np.flatnonzero(mask)
            out.append((vectors[rows], ids[rows]))
            continue
        if kept < len(ids):
            dense[len(out)] = mask
        out.append((vectors, ids))
    return out, dense
