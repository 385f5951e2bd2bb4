"""The thumbnail makers compared with rk's (issue 31): simplejpeg and pyvips, when installed.

Each makes the JPEG thumbnail ``make_thumbnail`` makes (256 px shortest side, the same
exact size, quality ``JPEG_QUALITY``) from a JPEG, in its own way:

- simplejpeg (libjpeg-turbo): DCT-scaled decode to the least scale covering the size
  (accurate DCT and fancy upsampling, its defaults, as Pillow's), Pillow bicubic to the
  exact size (the same box as rk's), encoded by simplejpeg at 4:2:0 (Pillow's subsampling at
  this quality) or by Pillow;
- pyvips: ``thumbnail_buffer`` (shrink-on-load, then its own reduce) forced to the exact
  size, ``jpegsave_buffer``. libvips runs one worker thread (``concurrency_set(1)``) and
  its operation cache is off (``cache_set_max(0)``), so each call does the whole work once.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

import numpy as np
from PIL import Image

from bench.thumb_quality import SIDE, jpeg_of
from rk.core.runtime.thumbs import JPEG_QUALITY, make_thumbnail, thumb_size

Maker = Callable[[bytes], bytes]

PILLOW = "Pillow (rk's make_thumbnail)"
SIMPLEJPEG = "simplejpeg decode + encode"
SIMPLEJPEG_PILLOW = "simplejpeg decode, Pillow encode"
PYVIPS = "pyvips thumbnail_buffer"
LABELS = (PILLOW, SIMPLEJPEG, SIMPLEJPEG_PILLOW, PYVIPS)


def pillow(data: bytes) -> bytes:
    """rk's thumbnail, as the spider and the backend make it."""
    made = make_thumbnail(data, SIDE)
    assert made is not None
    return made


def scale_box(
    full: tuple[int, int], decoded: tuple[int, int]
) -> tuple[float, float, float, float] | None:
    """Where the full image lies in its M/8-scaled decode (libjpeg-turbo rounds sizes up),
    as Pillow's ``draft`` gives it; None when no M/8 gives ``decoded``."""
    for eighths in range(1, 17):
        scaled = tuple(math.ceil(side * eighths / 8) for side in full)
        if scaled == decoded:
            return (0.0, 0.0, full[0] * eighths / 8, full[1] * eighths / 8)
    return None


def simplejpeg_maker(encode_with_pillow: bool) -> Maker | None:
    """simplejpeg's scaled decode, Pillow's bicubic, either encoder; None when not installed."""
    try:
        import simplejpeg
    except ImportError:
        return None

    def make(data: bytes) -> bytes:
        height, width, _, _ = simplejpeg.decode_jpeg_header(data)
        size = thumb_size((width, height), 1, SIDE)
        scale = min(1.0, SIDE / min(width, height))
        pixels = simplejpeg.decode_jpeg(
            data,
            colorspace="RGB",
            min_width=math.ceil(width * scale),
            min_height=math.ceil(height * scale),
        )
        decoded = Image.fromarray(pixels)
        box = scale_box((width, height), decoded.size)
        small = decoded.resize(size, Image.Resampling.BICUBIC, box=box, reducing_gap=3.0)
        if encode_with_pillow:
            return jpeg_of(small)
        return simplejpeg.encode_jpeg(
            np.asarray(small), quality=JPEG_QUALITY, colorsubsampling="420"
        )

    return make


def pyvips_maker() -> Maker | None:
    """libvips' shrink-on-load thumbnail to the exact size; None when not installed."""
    try:
        import pyvips
    except (ImportError, OSError):
        return None
    pyvips.concurrency_set(1)
    pyvips.cache_set_max(0)

    def make(data: bytes) -> bytes:
        with Image.open(io.BytesIO(data)) as header:
            width, height = thumb_size(header.size, 1, SIDE)
        thumb = pyvips.Image.thumbnail_buffer(data, width, height=height, size="force")
        made: bytes = thumb.jpegsave_buffer(Q=JPEG_QUALITY)
        return made

    return make


def makers() -> dict[str, Maker | None]:
    """Every maker by its row's label; None where its library is not installed."""
    return {
        PILLOW: pillow,
        SIMPLEJPEG: simplejpeg_maker(encode_with_pillow=False),
        SIMPLEJPEG_PILLOW: simplejpeg_maker(encode_with_pillow=True),
        PYVIPS: pyvips_maker(),
    }
