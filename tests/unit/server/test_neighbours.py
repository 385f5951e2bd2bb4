"""The neighbours math against brute force: one pass, incremental inserts, ties, edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from rk.server.similarity.neighbours import (
    SKIP,
    Placement,
    merge_list,
    normalised,
    threshold_of,
)
from tests.unit.server.brute_force import Lists, assert_exact, brute_force


def blocks(ids: np.ndarray, vectors: np.ndarray, size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The stored vectors as the job streams them: fixed-size slices in id order."""
    return [(ids[i : i + size], vectors[i : i + size]) for i in range(0, len(ids), size)]


def place_batches(
    ids: np.ndarray, vectors: np.ndarray, batches: list[int], k: int, block: int
) -> Lists:
    """Insert the images batch by batch, exactly as the neighbours job does."""
    stored: Lists = {}
    start = 0
    for size in batches:
        new = slice(start, start + size)
        seen = slice(0, start + size)
        placement = Placement(ids[new], vectors[new], k)
        new_set = set(ids[new].tolist())
        thresholds = np.array(
            [SKIP if int(i) in new_set else threshold_of(stored[int(i)], k) for i in ids[seen]],
            dtype=np.float32,
        )
        for (block_ids, block_vectors), lo in zip(
            blocks(ids[seen], vectors[seen], block),
            range(0, start + size, block),
            strict=True,
        ):
            placement.add_block(block_ids, block_vectors, thresholds[lo : lo + block])
        stored.update(placement.lists())
        for owner, candidates in placement.reverse().items():
            stored[owner] = merge_list(stored[owner], candidates, k)
        start += size
    return stored


@pytest.mark.parametrize(("seed", "block"), [(0, 64), (1, 1000), (2, 7)])
def test_one_pass_equals_brute_force(seed: int, block: int) -> None:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(np.arange(1, 2001))[:400].astype(np.int64)
    vectors = normalised(rng.standard_normal((400, 48)))
    stored = place_batches(ids, vectors, [400], k=20, block=block)
    assert_exact(stored, ids, vectors, 20)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_incremental_inserts_equal_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = 700
    ids = np.arange(10, 10 + count, dtype=np.int64)
    # clustered data, like real embeddings: many lists change when a cluster grows
    centres = rng.standard_normal((6, 32))
    noise = 0.4 * rng.standard_normal((count, 32))
    vectors = normalised(centres[rng.integers(0, 6, count)] + noise)
    batches = [1, 1, 3, 15, 80, 200, 400]
    stored = place_batches(ids, vectors, batches, k=20, block=53)
    assert_exact(stored, ids, vectors, 20)
    for entries in stored.values():
        scores = [s for _, s in entries]
        assert scores == sorted(scores, reverse=True)


def test_fewer_images_than_k() -> None:
    rng = np.random.default_rng(6)
    ids = np.arange(1, 6, dtype=np.int64)
    vectors = normalised(rng.standard_normal((5, 8)))
    stored = place_batches(ids, vectors, [1, 2, 2], k=20, block=2)
    assert all(len(entries) == 4 for entries in stored.values())
    assert_exact(stored, ids, vectors, 20)


def test_exact_ties_break_by_id() -> None:
    """Vectors whose dot products are exact in float32 tie exactly; lower ids win."""
    dim = 16
    rng = np.random.default_rng(7)
    rows = []
    for _ in range(120):
        vector = np.zeros(dim, dtype=np.float32)
        vector[rng.choice(dim, 4, replace=False)] = 0.5
        rows.append(vector)
    vectors = np.stack(rows)
    ids = np.arange(1, 121, dtype=np.int64)
    stored = place_batches(ids, vectors, [30, 30, 60], k=5, block=17)
    expected = brute_force(ids.tolist(), vectors, 5)
    assert {i: [n for n, _ in e] for i, e in stored.items()} == expected


def test_single_image_has_no_neighbours_and_is_never_its_own() -> None:
    placement = Placement([42], normalised([[1.0, 0.0]]), k=3)
    placement.add_block([42], normalised([[1.0, 0.0]]), [SKIP])
    assert placement.lists() == {42: []}
    assert placement.reverse() == {}


def test_merge_list_replaces_a_known_id_and_keeps_k() -> None:
    current = [(5, 0.9), (6, 0.8), (7, 0.7)]
    merged = merge_list(current, [(6, 0.95), (8, 0.85), (9, 0.1)], k=3)
    assert merged == [(6, 0.95), (5, 0.9), (8, 0.85)]


def test_placement_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="one row per new id"):
        Placement([1, 2], normalised([[1.0, 0.0]]), k=3)
    with pytest.raises(ValueError, match="k must be at least 1"):
        Placement([1], normalised([[1.0, 0.0]]), k=0)


def test_normalised_keeps_zero_rows_zero() -> None:
    out = normalised([[3.0, 4.0], [0.0, 0.0]])
    assert out.dtype == np.float32
    assert out.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
