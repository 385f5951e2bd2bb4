"""Compressed rows for the search index: sign bits scanned first, int8 to narrow, exact last.

Scanning 1M × 512 float32 rows reads 2 GB a query, at the memory bandwidth floor (~110 ms
here). A ``CodeShard`` holds per row the signs of its vector minus the shard's centre
(64 bytes at 512-d, stored word-major so each word is one contiguous pass), the vector in
int8 with its scale (512 + 4 bytes) and its ids: 0.29 of the float32 rows' memory. A query
takes the ``PRESCAN`` rows nearest in Hamming distance, re-scores them from the int8 rows,
and hands the best ``rerank_count(k)`` to the caller, which reads their float32 vectors
from the database and ranks them exactly (``SearchIndex.search``).

The centre is the mean of the shard's first append (up to a page of stamped rows): signs
around the data's own mean split clustered, anisotropic vectors (CLIP's share a common
direction) far better than signs around zero. A row mask (a scope) applies to the
distances of ``hamming`` before ``nearest`` picks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from rk.server.similarity.neighbours import Floats, Ids
from rk.server.similarity.vector_shards import Column, Shard

PRESCAN = 1000
"""Rows the sign bits pass on to int8 re-scoring for a top 20 (for more, as many per row
ranked exactly: 25 each). Measured on 1M × 512 clustered vectors
(``bench/vector_recall.py``): 250 already gave recall@20 1.0 with a centre, and 1,000
gave 0.995 with none, so this holds when the centre came from a small first batch."""
SCOPE_ROWS = 20_000
"""A scope of at most this many rows is re-scored from int8 in full, without the sign-bit
prescan: its top k sit farther from the query than a whole shard's, where sign bits order
rows poorly (a 1 % scope of 1M clustered vectors, ``bench.scoped_vectors``: recall@20 0.84
through the prescan)."""
INT8_MAX = 127
Words = npt.NDArray[np.uint64]


MIN_RERANK = 40


def rerank_count(k: int) -> int:
    """How many rows, best by int8 score, are ranked exactly for a top ``k``: the int8
    error (~1e-3 of a cosine) reorders only near-equal rows, so twice ``k`` (at least 40)
    covers the true top ``k`` (measured: 32 gave the same recall as 64 for k = 20)."""
    return max(2 * k, MIN_RERANK)


def prescan_count(k: int) -> int:
    """Rows the sign bits pass on for a top ``k``: ``PRESCAN`` per ``MIN_RERANK`` ranked."""
    return PRESCAN * rerank_count(k) // MIN_RERANK


class CodedPart(NamedTuple):
    """The filled rows of one block of a ``CodeShard``, and the centre of its signs."""

    codes: Words
    """Sign bits, (words, rows): word ``w`` of every row is one contiguous array."""
    bytes: npt.NDArray[np.int8]
    scales: Floats
    images: Ids
    centre: Floats


def words(dim: int) -> int:
    """64-bit words of sign bits a row of ``dim`` takes."""
    return -(-dim // 64)


def sign_bits(vectors: Floats, centre: Floats) -> Words:
    """Each row's signs around ``centre``, packed into 64-bit words (rows first)."""
    packed = np.packbits(vectors > centre, axis=1)
    padded = np.zeros((len(vectors), words(vectors.shape[1]) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


class CodeShard(Shard):
    """A shard of sign bits and int8 rows instead of float32 ones (see the module doc)."""

    centre: Floats | None = None

    def row_columns(self) -> tuple[Column, ...]:
        """Sign bits (word-major), int8 vector, its scale."""
        return (
            Column(np.uint64, words(self.dim), across=True),
            Column(np.int8, self.dim),
            Column(np.float32),
        )

    def encode(self, vectors: Floats) -> list[np.ndarray]:
        """Signs around the centre (set by the first rows), int8 rows and their scales."""
        if self.centre is None:
            self.centre = vectors.mean(axis=0, dtype=np.float64).astype(np.float32)
        peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
        scales = np.where(peak > 0, peak / INT8_MAX, 1).astype(np.float32)
        quantised = np.rint(vectors / scales[:, None]).astype(np.int8)
        return [sign_bits(vectors, self.centre), quantised, scales]

    def coded(self) -> list[CodedPart]:
        """The filled rows, block by block (views later changes leave intact)."""
        if self.centre is None:
            return []
        parts = []
        for block in self.blocks:
            if block.size:
                codes, quantised, scales, images, _ = block.filled()
                parts.append(CodedPart(codes, quantised, scales, images, self.centre))
        return parts


def hamming(parts: list[CodedPart], query: Floats) -> npt.NDArray[np.uint16]:
    """Every row's Hamming distance to the query's signs, parts one after another."""
    out = np.empty(sum(len(part.images) for part in parts), dtype=np.uint16)
    lo = 0
    for part in parts:
        rows = len(part.images)
        want = sign_bits(query[None, :], part.centre)[0]
        acc, spare = out[lo : lo + rows], np.empty(rows, dtype=np.uint64)
        count = np.empty(rows, dtype=np.uint8)
        acc[:] = 0
        for word, bits in zip(part.codes, want, strict=True):
            np.bitwise_xor(word, bits, out=spare)
            np.bitwise_count(spare, out=count)
            np.add(acc, count, out=acc)
        lo += rows
    return out


def ids_at(parts: list[CodedPart], positions: np.ndarray) -> tuple[Ids, np.ndarray]:
    """The image ids of rows at ``positions`` (into the parts laid end to end), and the
    part each sits in."""
    offsets = np.cumsum([0, *(len(part.images) for part in parts)])
    part_of = np.searchsorted(offsets, positions, side="right") - 1
    ids = np.empty(len(positions), dtype=np.int64)
    for part in np.unique(part_of):
        here = part_of == part
        ids[here] = parts[part].images[positions[here] - offsets[part]]
    return ids, part_of


def nearest(parts: list[CodedPart], distances: np.ndarray, count: int) -> np.ndarray:
    """Positions of the ``count`` smallest distances; at the cut, the lowest image ids."""
    if count >= len(distances):
        return np.arange(len(distances))
    below = np.cumsum(np.bincount(distances))
    cut = int(np.searchsorted(below, count))  # the distance holding the count-th row
    inside = np.flatnonzero(distances < cut)
    tied = np.flatnonzero(distances == cut)
    tied_ids, _ = ids_at(parts, tied)
    return np.concatenate(
        [inside, tied[np.argsort(tied_ids, kind="stable")][: count - len(inside)]]
    )


def int8_scores(parts: list[CodedPart], positions: np.ndarray, query: Floats) -> tuple[Ids, Floats]:
    """Image ids and approximate cosines (from the int8 rows) of rows at ``positions``."""
    ids, part_of = ids_at(parts, positions)
    offsets = np.cumsum([0, *(len(part.images) for part in parts)])
    scores = np.empty(len(positions), dtype=np.float32)
    for part in np.unique(part_of):
        here = part_of == part
        rows = positions[here] - offsets[part]
        block = parts[part]
        # einsum, not BLAS: a product over 1,000+ rows wakes BLAS threads, which cost
        # 25+ ms on busy cores where this one-thread loop takes 0.1 ms
        dots = np.einsum("ij,j->i", block.bytes[rows].astype(np.float32), query)
        scores[here] = dots * block.scales[rows]
    return ids, scores


def candidates(
    parts: list[CodedPart], query: Floats, k: int, keep: npt.NDArray[np.bool_] | None = None
) -> Ids:
    """The image ids to rank exactly for a top ``k``: sign bits, then int8, then the best
    ``rerank_count(k)`` (ties with lower image ids first, as the exact order breaks them).

    ``keep`` (one flag per row, parts end to end) is a scope: rows it drops are never
    candidates; they are put out of reach inside the Hamming scan, before the cut, and a
    scope of at most ``SCOPE_ROWS`` rows skips that scan.
    """
    total = sum(len(part.images) for part in parts)
    if total == 0 or k < 1:
        return np.zeros(0, dtype=np.int64)
    positions = np.arange(total) if keep is None else np.flatnonzero(keep)
    if len(positions) > (prescan_count(k) if keep is None else max(SCOPE_ROWS, prescan_count(k))):
        distances = hamming(parts, query)
        if keep is not None:
            distances[~keep] = np.iinfo(distances.dtype).max
        positions = nearest(parts, distances, prescan_count(k))
    if not len(positions):
        return np.zeros(0, dtype=np.int64)
    ids, scores = int8_scores(parts, positions, query)
    return ids[np.lexsort((ids, -scores))[: rerank_count(k)]]
