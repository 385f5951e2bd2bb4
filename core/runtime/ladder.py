"""An image's rendition ladder: WebP copies of the original at fixed widths, decoded once.

Pages offer these in ``srcset`` so a browser fetches about the pixels a tile shows instead
of the original (2560×3840 on Vogue). Each rung is ``RENDITION_WIDTHS`` wide where the
original is wider (never upscaled), its height in proportion, upright (EXIF orientation
applied) and RGB (transparency flattened onto white), as thumbnails are. The original is
decoded once for every rung: JPEG in draft mode at the smallest DCT scale still at least
the widest rung, then each rung is reduced and resampled from that one decode.

WebP, not AVIF: Pillow here encodes both, but AVIF took 4-8× as long as WebP for 15-35 %
fewer bytes, where decoding the original costs less than one WebP encode. Browsers without
WebP keep the JPEG thumbnail and original (pages wrap the ladder in ``<picture>``).
``ladder`` runs in the thumbnail pool, off the event loop, one thread per core.
"""

from __future__ import annotations

import io
import math
import warnings
from contextlib import nullcontext

from msgspec import Struct
from PIL import Image, UnidentifiedImageError

from rk.core.api.keys import RENDITION_WIDTHS
from rk.core.runtime.thumbs import (
    BIG_DECODES,
    BIG_PIXELS,
    MAX_PIXELS,
    ORIENTATIONS,
    draft,
    flatten,
    in_pool,
    orientation_of,
    pixel_problem,
    upright_size,
)

CONTENT_TYPE = "image/webp"
WEBP_QUALITY = 80
WEBP_METHOD = 4
"""libwebp's default effort: method 2 was ~1.8× faster for 3 % more bytes, 6 over three
times as slow for under 1 % fewer."""
_ERRORS = (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError)


class Rung(Struct, frozen=True, kw_only=True):
    """One rendition: its upright size and its WebP bytes."""

    width: int
    height: int
    data: bytes


def ladder_widths(width: int) -> tuple[int, ...]:
    """The rungs an upright image ``width`` px wide gets: every ladder width narrower than it."""
    return tuple(rung for rung in RENDITION_WIDTHS if rung < width)


def rung_size(upright: tuple[int, int], width: int) -> tuple[int, int]:
    """The upright size of the rung ``width`` px wide of an image of upright size ``upright``."""
    return width, max(1, round(upright[1] * width / upright[0]))


Box = tuple[float, float, float, float]


def _encode(img: Image.Image, size: tuple[int, int], box: Box | None, orientation: int) -> bytes:
    """``img`` (decoded, RGB) resized to ``size`` (stored orientation), turned upright, as WebP.

    ``box`` is where the full image lies in a draft-decoded one (DCT scaling rounds up)."""
    small = img.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=3.0)
    method = ORIENTATIONS.get(orientation)
    if method is not None:
        small = small.transpose(method)
    out = io.BytesIO()
    small.save(out, "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    return out.getvalue()


def make_ladder(data: bytes, max_pixels: int = MAX_PIXELS) -> list[Rung] | None:
    """Every rung of ``data``'s ladder, widest last; None when it does not decode or has too
    many pixels, ``[]`` when it is no wider than the narrowest rung."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as original:
                if pixel_problem(original.width, original.height, max_pixels):
                    return None
                orientation = orientation_of(original)
                upright = upright_size(original.size, orientation)
                widths = ladder_widths(upright[0])
                if not widths:
                    return []
                sizes = {w: rung_size(upright, w) for w in widths}
                stored = {w: upright_size(size, orientation) for w, size in sizes.items()}
                widest = stored[widths[-1]]
                scale = widest[0] / original.size[0]
                want = (widest[0], math.ceil(original.size[1] * scale))
                box = draft(original, want)
                big = original.size[0] * original.size[1] > BIG_PIXELS
                with BIG_DECODES if big else nullcontext():
                    img = flatten(original)
                    return [
                        Rung(
                            width=w,
                            height=sizes[w][1],
                            data=_encode(img, stored[w], box, orientation),
                        )
                        for w in widths
                    ]
    except _ERRORS:
        return None


async def ladder(data: bytes) -> list[Rung] | None:
    """``make_ladder`` in the shared thumbnail pool, off the event loop."""
    return await in_pool(make_ladder, data, MAX_PIXELS)
