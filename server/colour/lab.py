"""sRGB ⇄ CIELAB (D65), vectorised with numpy: the space every colour of rk is measured in.

sRGB bytes → linear light (the IEC 61966-2-1 curve, through a 256-entry table) → CIE XYZ
(the sRGB primaries' matrix, D65 white) → L*a*b* (CIE 1976, the same D65 white). The
inverse is used only to show a Lab colour as ``#rrggbb``, clipped into the sRGB gamut.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]

RGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
"""Linear sRGB → XYZ for the D65 white (IEC 61966-2-1)."""
XYZ_TO_RGB = np.linalg.inv(RGB_TO_XYZ)
WHITE_D65 = RGB_TO_XYZ.sum(axis=1)
"""XYZ of the D65 white: sRGB's (1, 1, 1), so white is exactly L* 100, a* 0, b* 0."""
EPSILON = (6 / 29) ** 3
"""Below this (relative XYZ) the Lab transfer function is linear."""


def _linear(encoded: Floats) -> Floats:
    """sRGB-encoded values in [0, 1] → linear light."""
    return np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)


LINEAR_OF_BYTE = _linear(np.arange(256) / 255.0)
"""Linear light of each 8-bit sRGB value."""


def _f(t: Floats) -> Floats:
    return np.where(t > EPSILON, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)


def _f_inverse(t: Floats) -> Floats:
    return np.where(t > 6 / 29, t**3, 3 * (6 / 29) ** 2 * (t - 4 / 29))


def rgb_to_lab(rgb: NDArray[np.uint8]) -> Floats:
    """``(..., 3)`` sRGB bytes → ``(..., 3)`` L*a*b* (D65)."""
    xyz = LINEAR_OF_BYTE[rgb] @ RGB_TO_XYZ.T / WHITE_D65
    f = _f(xyz)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def lab_to_rgb(lab: Floats) -> NDArray[np.uint8]:
    """``(..., 3)`` L*a*b* → sRGB bytes, out-of-gamut colours clipped channel by channel."""
    lab = np.asarray(lab, dtype=np.float64)
    fy = (lab[..., 0] + 16) / 116
    f = np.stack([fy + lab[..., 1] / 500, fy, fy - lab[..., 2] / 200], axis=-1)
    linear = np.clip((_f_inverse(f) * WHITE_D65) @ XYZ_TO_RGB.T, 0.0, 1.0)
    encoded = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    return np.asarray(np.round(encoded * 255), dtype=np.uint8)


def hex_of(lab: Floats) -> str:
    """``#rrggbb`` of one Lab colour."""
    red, green, blue = (int(v) for v in lab_to_rgb(lab))
    return f"#{red:02x}{green:02x}{blue:02x}"


def lab_of_hex(text: str) -> Floats:
    """The Lab colour of ``#rrggbb`` (the caller has checked the form)."""
    digits = text.lstrip("#")
    rgb = np.array([int(digits[i : i + 2], 16) for i in (0, 2, 4)], dtype=np.uint8)
    return rgb_to_lab(rgb)
