"""A garment's palette from an image's pixels: its main colours in CIELAB and their shares.

The pipeline (``docs/colour.md`` gives the reasons and the limits):

1. decode a small rendition: the stored thumbnail shrunk to ``SAMPLE_SIDE`` pixels on its
   shortest side (an original is decoded in JPEG draft mode, never at full size);
2. convert every pixel to L*a*b* (``lab.py``);
3. weigh each pixel as evidence of the garment (``regions.py``: centre, backdrop, skin);
4. cluster the weighted pixels into ``CLUSTERS`` colours (``clusters.py``), merge shades
   closer than ΔE00 8, drop colours under ``MIN_SHARE``, and renormalise;
5. name each colour after its nearest swatch by ΔE00 (``names.py``).

Everything here is pure: bytes or pixels in, a ``Palette`` out; the same input always gives
the same palette.
"""

from __future__ import annotations

import io

import numpy as np
from msgspec import Struct
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

from rk.core.api.errors import RkError
from rk.core.runtime.thumbs import make_thumbnail
from rk.server.colour.clusters import merged, weighted_kmeans
from rk.server.colour.lab import hex_of, rgb_to_lab
from rk.server.colour.names import named_colours, nearest
from rk.server.colour.regions import garment_weights

SAMPLE_SIDE = 64
"""Pixels on the shortest side of the rendition measured (a quarter of a 256 px thumbnail)."""
CLUSTERS = 5
MIN_SHARE = 0.05
"""Colours with less of the garment's weight than this are noise (seams, shadows, edges)."""


class UnreadableImage(RkError):
    """The bytes do not decode as an image rk can measure."""


class PaletteColour(Struct, frozen=True, kw_only=True):
    """One main colour: its nearest name (and ΔE00 to it), ``#rrggbb``, Lab and share."""

    name: str
    hex: str
    l: float  # noqa: E741 - L* is the standard name
    a: float
    b: float
    share: float
    delta_e: float


class Palette(Struct, frozen=True, kw_only=True):
    """A garment's main colours, largest share first; shares sum to 1."""

    colours: tuple[PaletteColour, ...]


def small_pixels(data: bytes) -> NDArray[np.uint8]:
    """The image's RGB pixels at ``SAMPLE_SIDE`` on the shortest side (never upscaled)."""
    small = make_thumbnail(data, SAMPLE_SIDE)
    if small is None:
        raise UnreadableImage("not an image rk can decode")
    try:
        with Image.open(io.BytesIO(small)) as img:
            return np.asarray(img.convert("RGB"), dtype=np.uint8)
    except (UnidentifiedImageError, OSError) as exc:
        raise UnreadableImage(f"not an image rk can decode ({exc})") from exc


def palette_of_pixels(rgb: NDArray[np.uint8]) -> Palette:
    """The palette of an ``(height, width, 3)`` sRGB image."""
    lab = rgb_to_lab(rgb)
    weights = garment_weights(lab)
    centres, shares = weighted_kmeans(lab.reshape(-1, 3), weights.reshape(-1), CLUSTERS)
    centres, shares = merged(centres, shares)
    keep = shares >= MIN_SHARE
    centres, shares = centres[keep], shares[keep] / shares[keep].sum()
    order = np.argsort(-shares, kind="stable")
    centres, shares = centres[order], shares[order]
    names, distances = nearest(centres)
    swatches = named_colours()
    return Palette(
        colours=tuple(
            PaletteColour(
                name=swatches[int(names[i])].name,
                hex=hex_of(centres[i]),
                l=round(float(centres[i][0]), 2),
                a=round(float(centres[i][1]), 2),
                b=round(float(centres[i][2]), 2),
                share=round(float(shares[i]), 4),
                delta_e=round(float(distances[i]), 2),
            )
            for i in range(len(centres))
        )
    )


def colours_for_thumbnail(thumb: bytes) -> Palette:
    """The garment's palette from a stored thumbnail's bytes (or any image's, read small).

    The hook for the pass that makes thumbnails: it holds the bytes already, so measuring
    costs one small decode and no fetch. CPU-bound for a few milliseconds: call it off the
    event loop (``asyncio.to_thread``). Raises ``UnreadableImage`` for bytes that do not
    decode.
    """
    return palette_of_pixels(small_pixels(thumb))
