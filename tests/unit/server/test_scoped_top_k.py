"""Scoped top-K in the exact index: rows masked inside the scan equal brute force over the
kept rows at every share kept (gathered below ``GATHER_SHARE``, masked above it)."""

from __future__ import annotations

import numpy as np
import pytest

from rk.server.similarity.neighbours import normalised
from rk.server.similarity.vector_shards import Shard, top_k


def brute(ids: np.ndarray, vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = vectors.astype(np.float64) @ query.astype(np.float64)
    return [int(ids[i]) for i in np.lexsort((ids, -scores))[:k]]


@pytest.mark.parametrize("share", [0.0, 0.001, 0.01, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("k", [1, 20, 5000])
def test_masked_top_k_equals_brute_force_over_the_kept_rows(share: float, k: int) -> None:
    rng = np.random.default_rng(int(share * 1000) + k)
    count, dim = 3000, 16
    images = rng.permutation(np.arange(1, count + 1)).astype(np.int64)
    articles = (images - 1) // 5 + 1
    vectors = normalised(rng.standard_normal((count, dim)))
    shard = Shard(dim, block_rows=1024)  # three blocks, the last one partly filled
    shard.append(images, articles, vectors)
    chosen = np.unique(articles)
    scope = np.sort(rng.choice(chosen, round(share * len(chosen)), replace=False))
    kept = np.isin(articles, scope)
    query = normalised(rng.standard_normal((1, dim)))[0]
    got = top_k(shard.view(), query, k, shard.masks(scope))
    assert len(got) == min(k, int(kept.sum()))
    assert [i for i, _ in got] == brute(images[kept], vectors[kept], query, k)
    assert set(np.asarray([i for i, _ in got])) <= set(images[kept].tolist())


def test_no_mask_is_the_unscoped_answer() -> None:
    rng = np.random.default_rng(3)
    images = np.arange(1, 101, dtype=np.int64)
    vectors = normalised(rng.standard_normal((100, 8)))
    shard = Shard(8, block_rows=1024)
    shard.append(images, images, vectors)
    query = vectors[7]
    assert top_k(shard.view(), query, 10) == top_k(shard.view(), query, 10, None)
    everything = shard.masks(images)
    assert top_k(shard.view(), query, 10, everything) == top_k(shard.view(), query, 10)
