"""Brute-force neighbours in float64: the reference the incremental math must equal."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

Lists = dict[int, list[tuple[int, float]]]


def brute_force(ids: list[int], vectors: np.ndarray, k: int) -> dict[int, list[int]]:
    """Every image's top-k ids by exact float64 cosine, score desc then id asc."""
    sims = cosines(vectors)
    out: dict[int, list[int]] = {}
    for row, image_id in enumerate(ids):
        ranked = sorted(
            (-float(sims[row, col]), other) for col, other in enumerate(ids) if other != image_id
        )
        out[image_id] = [other for _, other in ranked[:k]]
    return out


def cosines(vectors: np.ndarray) -> np.ndarray:
    """All pairwise cosines in float64."""
    unit = vectors.astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    return unit @ unit.T


def assert_exact(stored: Lists, ids: np.ndarray, vectors: np.ndarray, k: int) -> None:
    """The top-k ids of brute force, ranked by the true cosine.

    Only neighbours whose float64 cosines differ by less than float32 resolution (1e-6)
    may swap places, or swap in and out at the k-th place; everything else must match.
    """
    expected = brute_force(ids.tolist(), vectors, k)
    sims = cosines(vectors)
    row_of = {int(i): row for row, i in enumerate(ids)}
    assert set(stored) == set(expected)
    for image_id, entries in stored.items():
        row = row_of[image_id]
        got = [n for n, _ in entries]
        assert len(got) == len(expected[image_id])
        if got != expected[image_id]:
            last = sims[row, row_of[expected[image_id][-1]]]
            for other in set(got) ^ set(expected[image_id]):
                assert abs(sims[row, row_of[other]] - last) < 1e-6, (image_id, other)
        truth = [sims[row, row_of[n]] for n in got]
        assert all(a >= b - 1e-6 for a, b in itertools.pairwise(truth))
        for (_, score), exact in zip(entries, truth, strict=True):
            assert score == pytest.approx(exact, abs=1e-5)
