"""The CIEDE2000 colour difference (ΔE00), vectorised, exactly as Sharma, Wu and Dalal give it.

G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference formula: implementation
notes, supplementary test data, and mathematical observations", Color Research and
Application 30(1), 2005, equations (1)-(22), with kL = kC = kH = 1. The notes' fine points
are kept: hue angles in [0°, 360°), a hue difference and mean hue of 0 (resp. the plain sum)
when either chroma is 0, and the 180° cases of the hue mean. Their 34 test pairs are
checked to four decimals in ``tests/unit/server/colour``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]
POW25_7 = 25.0**7


def _hue(b: Floats, a_prime: Floats) -> Floats:
    """h' in degrees within [0, 360); 0 where a' = b = 0 (eq. 4)."""
    hue = np.degrees(np.arctan2(b, a_prime))
    return np.where(hue < 0, hue + 360.0, hue)


def delta_e_2000(lab1: ArrayLike, lab2: ArrayLike) -> Floats:
    """ΔE00 between ``(..., 3)`` Lab arrays (broadcast against each other)."""
    first = np.asarray(lab1, dtype=np.float64)
    second = np.asarray(lab2, dtype=np.float64)
    l1, a1, b1 = first[..., 0], first[..., 1], first[..., 2]
    l2, a2, b2 = second[..., 0], second[..., 1], second[..., 2]

    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + POW25_7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = _hue(b1, a1p), _hue(b2, a2p)
    chroma_product = c1p * c2p
    achromatic = chroma_product == 0

    dlp = l2 - l1
    dcp = c2p - c1p
    dh = h2p - h1p
    dhp = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dhp = np.where(achromatic, 0.0, dhp)
    dhp_big = 2 * np.sqrt(chroma_product) * np.sin(np.radians(dhp / 2))

    lp_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    h_sum = h1p + h2p
    hp_mean = np.where(
        np.abs(h1p - h2p) <= 180,
        h_sum / 2,
        np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2),
    )
    hp_mean = np.where(achromatic, h_sum, hp_mean)

    t = (
        1
        - 0.17 * np.cos(np.radians(hp_mean - 30))
        + 0.24 * np.cos(np.radians(2 * hp_mean))
        + 0.32 * np.cos(np.radians(3 * hp_mean + 6))
        - 0.20 * np.cos(np.radians(4 * hp_mean - 63))
    )
    d_theta = 30 * np.exp(-(((hp_mean - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_mean**7 / (cp_mean**7 + POW25_7))
    s_l = 1 + 0.015 * (lp_mean - 50) ** 2 / np.sqrt(20 + (lp_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c

    lightness, chroma, hue = dlp / s_l, dcp / s_c, dhp_big / s_h
    return np.asarray(
        np.sqrt(lightness**2 + chroma**2 + hue**2 + r_t * chroma * hue), dtype=np.float64
    )
