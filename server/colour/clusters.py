"""Weighted k-means in CIELAB, deterministic, and the merging of near-identical clusters.

Lloyd's algorithm on the Euclidean distance in Lab (ΔE76: the space k-means is meant for),
seeded by k-means++ from a fixed seed, so the same pixels always give the same clusters.
Clusters closer than ``MERGE_DE`` by ΔE00 (the shades of one fabric under light) are then
merged into their weighted mean.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import Floats

SEED = 20050101
MAX_ROUNDS = 30
MERGE_DE = 8.0
QUANTUM = 1.0
"""Points on the same Lab grid cell (ΔE76 ~1 apart) are clustered as one, with their weight."""


def _pooled(
    labels: NDArray[np.intp], points: Floats, weights: Floats, size: int
) -> tuple[Floats, Floats]:
    """Per label: the total weight and the weighted sum of the points."""
    mass = np.bincount(labels, weights=weights, minlength=size).astype(np.float64)
    sums = np.stack(
        [np.bincount(labels, weights=weights * points[:, c], minlength=size) for c in (0, 1, 2)],
        axis=1,
    ).astype(np.float64)
    return mass, sums


def _grouped(points: Floats, weights: Floats) -> tuple[Floats, Floats]:
    """The weighted points pooled per ``QUANTUM`` grid cell: each cell's mean and weight."""
    cells = np.round(points / QUANTUM).astype(np.int64) + 512
    codes = (cells[:, 0] << 20) | (cells[:, 1] << 10) | cells[:, 2]
    unique, inverse = np.unique(codes, return_inverse=True)
    mass, sums = _pooled(inverse, points, weights, len(unique))
    return sums / mass[:, None], mass


def _seeds(points: Floats, weights: Floats, k: int) -> Floats:
    """k-means++ seeds: each next one drawn in proportion to weight × squared distance."""
    rng = np.random.default_rng(SEED)
    chosen = [points[int(np.argmax(weights))]]
    nearest = ((points - chosen[0]) ** 2).sum(axis=1)
    for _ in range(1, k):
        odds = weights * nearest
        total = odds.sum()
        if total <= 0:
            break
        pick = points[int(rng.choice(len(points), p=odds / total))]
        chosen.append(pick)
        nearest = np.minimum(nearest, ((points - pick) ** 2).sum(axis=1))
    return np.array(chosen)


def weighted_kmeans(points: Floats, weights: Floats, k: int) -> tuple[Floats, Floats]:
    """At most ``k`` centres of ``(n, 3)`` Lab points and each one's share of the weight.

    Points of weight 0 take no part; empty clusters are dropped. Shares sum to 1 (empty
    arrays when the weight is all 0).
    """
    keep = weights > 0
    if not keep.any():
        return np.zeros((0, 3)), np.zeros(0)
    points, weights = _grouped(points[keep], weights[keep])
    centres = _seeds(points, weights, min(k, len(points)))
    for _ in range(MAX_ROUNDS):
        mass, sums = _tally(points, weights, centres)
        used = mass > 0
        moved = sums[used] / mass[used, None]
        if used.all() and np.abs(moved - centres).max() < 1e-6:
            break
        centres = moved
    mass, _ = _tally(points, weights, centres)
    used = mass > 0
    return centres[used], mass[used] / mass.sum()


def _tally(points: Floats, weights: Floats, centres: Floats) -> tuple[Floats, Floats]:
    """Each centre's weight and weighted Lab sum over the points nearest to it."""
    distances = (centres**2).sum(axis=1)[None, :] - 2 * points @ centres.T
    return _pooled(np.argmin(distances, axis=1), points, weights, len(centres))


def merged(centres: Floats, shares: Floats) -> tuple[Floats, Floats]:
    """Clusters with the closest pair merged while it is nearer than ``MERGE_DE`` (ΔE00)."""
    centres, shares = centres.copy(), shares.copy()
    while len(centres) > 1:
        distances = delta_e_2000(centres[:, None, :], centres[None, :, :])
        np.fill_diagonal(distances, np.inf)
        first, second = np.unravel_index(int(np.argmin(distances)), distances.shape)
        if distances[first, second] >= MERGE_DE:
            break
        total = shares[first] + shares[second]
        centres[first] = (centres[first] * shares[first] + centres[second] * shares[second]) / total
        shares[first] = total
        centres = np.delete(centres, second, axis=0)
        shares = np.delete(shares, second)
    return centres, shares
