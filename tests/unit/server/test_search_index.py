"""The in-memory side of the search index: shards and top-K against the brute-force scan."""

from __future__ import annotations

import numpy as np
import pytest

from rk.server.similarity.neighbours import SKIP, Placement, normalised
from rk.server.similarity.search_index import HASH_FACTORS, HASH_PRIMES, Fingerprint, id_hash
from rk.server.similarity.vector_shards import Shard, top_k


def scan(ids: np.ndarray, vectors: np.ndarray, query: np.ndarray, k: int, block: int):
    """The path before the index: every vector streamed past ``Placement`` in blocks."""
    placement = Placement([0], query[None, :], k)
    for lo in range(0, len(ids), block):
        rows = slice(lo, lo + block)
        placement.add_block(ids[rows], vectors[rows], np.full(len(ids[rows]), SKIP))
    return placement.lists()[0]


def exact(ids: np.ndarray, vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    """Top-k ids by float64 cosine, score descending then id ascending."""
    scores = vectors.astype(np.float64) @ query.astype(np.float64)
    return [int(ids[i]) for i in np.lexsort((ids, -scores))[:k]]


def same(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> None:
    """Same ids in the same order; scores equal to float32 rounding (BLAS sums in blocks)."""
    assert [i for i, _ in got] == [i for i, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)


def filled(
    count: int, dim: int, block_rows: int, seed: int
) -> tuple[Shard, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(np.arange(1, 10 * count + 1))[:count].astype(np.int64)
    vectors = normalised(rng.standard_normal((count, dim)))
    shard = Shard(dim, block_rows)
    for lo in range(0, count, 37):  # uneven appends, as reads of new rows come in
        rows = slice(lo, lo + 37)
        shard.append(ids[rows], ids[rows] // 10, vectors[rows])
    return shard, ids, vectors


@pytest.mark.parametrize(("seed", "block_rows", "k"), [(0, 64, 10), (1, 1000, 20), (2, 7, 1)])
def test_top_k_equals_the_scan_and_float64(seed: int, block_rows: int, k: int) -> None:
    shard, ids, vectors = filled(700, 24, block_rows, seed)
    assert len(shard) == 700
    rng = np.random.default_rng(seed + 100)
    for _ in range(5):
        query = normalised(rng.standard_normal((1, 24)))[0]
        got = top_k(shard.view(), query, k)
        before = scan(ids, vectors, query, k, block=512)
        same(got, before)
        assert [i for i, _ in got] == exact(ids, vectors, query, k)


def test_ties_are_broken_by_image_id_across_blocks() -> None:
    shard = Shard(2, block_rows=3)
    ids = np.array([9, 4, 7, 1, 8, 2, 6], dtype=np.int64)
    vectors = np.array([[1, 0], [0, 1], [1, 0], [1, 0], [0, 1], [1, 0], [0.6, 0.8]], np.float32)
    shard.append(ids, ids, vectors)
    query = np.array([1, 0], dtype=np.float32)
    assert [i for i, _ in top_k(shard.view(), query, 3)] == [1, 2, 7]
    assert [i for i, _ in top_k(shard.view(), query, 100)] == [1, 2, 7, 9, 6, 4, 8]
    assert top_k(shard.view(), query, 0) == []
    assert top_k(Shard(2).view(), query, 5) == []


def test_removing_articles_keeps_the_rest_and_old_views_intact() -> None:
    shard, ids, vectors = filled(500, 8, 64, seed=3)
    query = normalised(np.ones((1, 8)))[0]
    view = shard.view()
    before = top_k(view, query, 500)
    articles = ids // 10
    gone = np.unique(articles[::3])
    removed = shard.remove_articles(gone)
    keep = ~np.isin(articles, gone)
    assert removed == int((~keep).sum())
    assert len(shard) == int(keep.sum())
    same(top_k(shard.view(), query, 500), [p for p in before if p[0] // 10 not in set(gone)])
    assert top_k(view, query, 500) == before  # a search in flight is not disturbed
    shard.append(ids[~keep], articles[~keep], vectors[~keep])
    same(top_k(shard.view(), query, 500), before)
    assert top_k(view, query, 500) == before


@pytest.mark.parametrize("block_rows", [64, 1000])
def test_removing_in_place_moves_the_last_rows_into_the_gaps(block_rows: int) -> None:
    shard, ids, vectors = filled(500, 8, block_rows, seed=5)
    query = normalised(np.ones((1, 8)))[0]
    articles = ids // 10
    for gone in (np.unique(articles[::7]), np.unique(articles[:40]), np.unique(articles[-3:])):
        blocks = list(shard.blocks)
        removed = shard.remove_articles(gone, in_place=True)
        assert removed == int(np.isin(articles, gone).sum())
        articles = np.where(np.isin(articles, gone), -1, articles)
        keep = articles >= 0
        assert len(shard) == int(keep.sum())
        if block_rows > len(ids):  # one block, never merged: it must be the same arrays
            assert shard.blocks == blocks
        want = exact(ids[keep], vectors[keep], query, 1000)
        assert [i for i, _ in top_k(shard.view(), query, 1000)] == want


def test_removals_merge_small_blocks() -> None:
    shard, ids, _ = filled(640, 4, 64, seed=4)
    assert len(shard.blocks) == 10
    shard.remove_articles(np.unique(ids // 10)[: len(ids) * 3 // 4])
    assert len(shard) < 200
    assert len(shard.blocks) <= len(shard) // 32 + 1
    assert shard.nbytes() == len(shard) * (4 * 4 + 8 + 8)


def test_fingerprint_changes_with_the_set_and_subtracts() -> None:
    ids = {3, 10, 2**31 - 1}
    fp = Fingerprint.of(ids)
    assert (fp.n, fp.s, fp.h) == (3, sum(ids), sum(id_hash(i) for i in ids))
    assert fp.without({10}) == Fingerprint.of({3, 2**31 - 1})
    assert max(HASH_PRIMES) ** 2 < 2**63
    assert all(max(HASH_PRIMES) * factor < 2**63 for factor in HASH_FACTORS)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ([1, 4], [2, 3]),  # same count and sum: a linear hash cannot tell these apart
        ([1, 5, 6], [2, 3, 7]),  # same sums of powers 1 and 2
        ([1, 5, 8, 12], [2, 3, 10, 11]),  # ... of powers 1 to 3
    ],
)
def test_fingerprint_tells_apart_sets_with_equal_power_sums(
    left: list[int], right: list[int]
) -> None:
    for shift in range(0, 50_000, 7):
        a = Fingerprint.of({i + shift for i in left})
        b = Fingerprint.of({i + shift for i in right})
        assert (a.n, a.s) == (b.n, b.s)
        assert a != b
