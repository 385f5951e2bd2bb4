"""In-memory float32 matrices of unit vectors, and exact top-K by one matrix-vector product.

A ``Shard`` holds the rows of one (model, kind, dim): vectors in blocks of at most
``BLOCK_BYTES``, each row with its image id and article id. A block is a set of
``Column`` arrays, one per thing a row holds; a subclass may hold other columns
(``vector_codes.CodeShard``: sign bits and int8 rows for search). Blocks let rows be appended
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

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Column:
    """One per-row array of a block: its dtype, its width (0: one value a row), and whether
    rows run along its last axis (codes scanned a word at a time) instead of its first."""

    dtype: type[np.generic]
    width: int = 0
    across: bool = False

    def empty(self, capacity: int) -> np.ndarray:
        """An unfilled array for ``capacity`` rows."""
        if not self.width:
            return np.empty(capacity, dtype=self.dtype)
        shape = (self.width, capacity) if self.across else (capacity, self.width)
        return np.empty(shape, dtype=self.dtype)

    def at(self, rows: slice | np.ndarray) -> tuple[slice | np.ndarray, ...]:
        """The index of these rows in an array of this column."""
        return (slice(None), rows) if self.across else (rows,)

    def row_bytes(self) -> int:
        """Bytes a row takes in this column."""
        return max(1, self.width) * np.dtype(self.dtype).itemsize


IDS = (Column(np.int64), Column(np.int64))
"""Every block's last two columns: image ids, article ids."""


class _Block:
    """Rows with spare capacity at the end: the first ``size`` of each column are filled."""

    __slots__ = ("arrays", "columns", "size")

    def __init__(self, columns: tuple[Column, ...], capacity: int) -> None:
        self.columns = columns
        self.arrays = [column.empty(capacity) for column in columns]
        self.size = 0

    @classmethod
    def of(cls, rows: list[tuple[_Block, np.ndarray]], columns: tuple[Column, ...]) -> _Block:
        """A new block, exactly as big as needed, of the selected rows of other blocks."""
        block = cls(columns, sum(len(index) for _, index in rows))
        for source, index in rows:
            end = block.size + len(index)
            for column, out, array in zip(columns, block.arrays, source.arrays, strict=True):
                into = out[column.at(slice(block.size, end))]
                np.take(array, index, axis=int(column.across), out=into, mode="clip")
            block.size = end
        return block

    @property
    def images(self) -> Ids:
        return self.arrays[-2]

    @property
    def articles(self) -> Ids:
        return self.arrays[-1]

    @property
    def capacity(self) -> int:
        return len(self.images)

    def put(self, values: list[np.ndarray]) -> None:
        """Fill the next rows with one array per column, rows first (the caller checked
        there is room)."""
        end = self.size + len(values[-1])
        for column, array, value in zip(self.columns, self.arrays, values, strict=True):
            array[column.at(slice(self.size, end))] = value.T if column.across else value
        self.size = end

    def drop(self, rows: np.ndarray) -> None:
        """Remove these filled rows (ascending) in place: the last rows move into them."""
        size = self.size - len(rows)
        holes = rows[rows < size]
        tail = np.setdiff1d(np.arange(size, self.size), rows, assume_unique=True)
        for column, array in zip(self.columns, self.arrays, strict=True):
            array[column.at(holes)] = array[column.at(tail)]
        self.size = size

    def filled(self) -> list[np.ndarray]:
        """Views of the filled rows of every column."""
        return [
            a[c.at(slice(0, self.size))] for c, a in zip(self.columns, self.arrays, strict=True)
        ]

    def nbytes(self) -> int:
        """Bytes of the filled rows: the rest is address space the OS backs only once
        written (``np.empty`` does not touch it)."""
        return self.size * sum(column.row_bytes() for column in self.columns)


class Shard:
    """The vectors of one (model, kind, dim), with their image and article ids."""

    def __init__(self, dim: int, block_rows: int = 0) -> None:
        self.dim = dim
        self.block_rows = block_rows or max(1024, BLOCK_BYTES // (4 * dim))
        self.columns = (*self.row_columns(), *IDS)
        self.blocks: list[_Block] = []

    def row_columns(self) -> tuple[Column, ...]:
        """What a row holds besides its ids: here its float32 vector."""
        return (Column(np.float32, self.dim),)

    def encode(self, vectors: Floats) -> list[np.ndarray]:
        """The row columns' values of these vectors, rows first."""
        return [vectors]

    def __len__(self) -> int:
        return sum(block.size for block in self.blocks)

    def nbytes(self) -> int:
        """Memory of the rows held: vectors and ids."""
        return sum(block.nbytes() for block in self.blocks)

    def view(self) -> list[Part]:
        """The filled rows, block by block, as views that later changes leave intact."""
        return [(b.filled()[0], b.images[: b.size]) for b in self.blocks if b.size]

    def masks(self, articles: Ids) -> list[Mask]:
        """Per part of ``view()``, which rows belong to these articles (sorted ids)."""
        return [np.isin(b.articles[: b.size], articles) for b in self.blocks if b.size]

    def append(self, images: Ids, articles: Ids, vectors: Floats) -> None:
        """Add rows at the end (images must not be in the shard already).

        A new last block is made full size at once: its unwritten rows cost no memory, and
        appending never copies rows already held.
        """
        values = [*self.encode(vectors), images, articles]
        done = 0
        while done < len(images):
            tail = self.blocks[-1] if self.blocks else None
            if tail is None or tail.size == tail.capacity:
                tail = _Block(self.columns, self.block_rows)
                self.blocks.append(tail)
            take = min(len(images) - done, tail.capacity - tail.size)
            tail.put([value[done : done + take] for value in values])
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
                kept.append(_Block.of([(block, np.flatnonzero(~gone))], self.columns))
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
                whole = [(last, np.arange(last.size)), (block, np.arange(block.size))]
                out[-1] = _Block.of(whole, self.columns)
                continue
            out.append(block)
        return out


def top_k(
    parts: list[Part], query: Floats, k: int, masks: list[Mask] | None = None
) -> list[tuple[int, float]]:
    """The ``k`` best rows of ``parts`` for a unit ``query``: (image id, cosine), score
    descending then image id ascending (the neighbours job's order). Scores are float32;
    float64 rows and query are summed in float64 and rounded once.

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
