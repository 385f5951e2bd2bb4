"""Flat-colour garment pictures with a known colour, for the colour tests.

A figure on a plain backdrop, as a runway thumbnail is framed: a skin-toned head, neck, arms
and legs, dark shoes, and one garment of a single colour (a dress, a coat with sleeves, or a
top and skirt), drawn at the thumbnail's size and saved as JPEG. A little seeded noise stands
in for fabric and sensor grain, so JPEG blocks and edges are as messy as a photograph's.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw

SHAPES = ("dress", "coat", "suit")
BACKDROPS = ("#ffffff", "#d9d9d9", "#efece6")
SKINS = ("#e8bfa0", "#c68b67", "#8d5a3f")
SIZE = (256, 384)


def _garment(draw: ImageDraw.ImageDraw, shape: str, colour: str, w: int, h: int) -> None:
    """The garment's polygons, over the body."""
    if shape == "dress":
        draw.polygon(
            [(0.37 * w, 0.2 * h), (0.63 * w, 0.2 * h), (0.74 * w, 0.74 * h), (0.26 * w, 0.74 * h)],
            fill=colour,
        )
    elif shape == "coat":
        draw.rectangle([0.31 * w, 0.2 * h, 0.69 * w, 0.8 * h], fill=colour)
        draw.rectangle([0.22 * w, 0.21 * h, 0.31 * w, 0.6 * h], fill=colour)
        draw.rectangle([0.69 * w, 0.21 * h, 0.78 * w, 0.6 * h], fill=colour)
    else:
        draw.rectangle([0.33 * w, 0.2 * h, 0.67 * w, 0.46 * h], fill=colour)
        draw.rectangle([0.25 * w, 0.21 * h, 0.33 * w, 0.42 * h], fill=colour)
        draw.rectangle([0.67 * w, 0.21 * h, 0.75 * w, 0.42 * h], fill=colour)
        draw.polygon(
            [(0.34 * w, 0.46 * h), (0.66 * w, 0.46 * h), (0.7 * w, 0.7 * h), (0.3 * w, 0.7 * h)],
            fill=colour,
        )


def garment_picture(
    colour: str,
    *,
    shape: str = "dress",
    backdrop: str = "#ffffff",
    skin: str = "#e8bfa0",
    seed: int = 0,
    size: tuple[int, int] = SIZE,
) -> bytes:
    """JPEG bytes of a figure wearing one ``colour`` (``#rrggbb``) garment."""
    w, h = size
    img = Image.new("RGB", size, backdrop)
    draw = ImageDraw.Draw(img)
    draw.ellipse([0.43 * w, 0.05 * h, 0.57 * w, 0.17 * h], fill=skin)
    draw.rectangle([0.47 * w, 0.15 * h, 0.53 * w, 0.21 * h], fill=skin)
    draw.rectangle([0.24 * w, 0.2 * h, 0.3 * w, 0.55 * h], fill=skin)
    draw.rectangle([0.7 * w, 0.2 * h, 0.76 * w, 0.55 * h], fill=skin)
    draw.rectangle([0.4 * w, 0.6 * h, 0.47 * w, 0.92 * h], fill=skin)
    draw.rectangle([0.53 * w, 0.6 * h, 0.6 * w, 0.92 * h], fill=skin)
    draw.rectangle([0.38 * w, 0.92 * h, 0.48 * w, 0.95 * h], fill="#202020")
    draw.rectangle([0.52 * w, 0.92 * h, 0.62 * w, 0.95 * h], fill="#202020")
    _garment(draw, shape, colour, w, h)
    noise = np.random.default_rng(seed).normal(0, 3, (h, w, 3))
    pixels = np.clip(np.asarray(img, dtype=np.float64) + noise, 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=85)
    return out.getvalue()
