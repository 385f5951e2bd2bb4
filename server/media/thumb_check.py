"""What stored bytes are: an image's type and size; whether a thumbnail keeps its promise.

A thumbnail key does not name its own bytes, so whoever uploaded one could have put
anything there. Before an image row references a stored thumbnail it must decode as a
JPEG of the size ``rk.core.runtime.thumbs.make_thumbnail`` makes from the original: shortest side
``min(thumb_size, original's shortest side)``, the long side in proportion (EXIF rotation
may swap the two).
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, UnidentifiedImageError

LONG_SIDE_SLACK = 2
"""Pixels the long side may differ by: JPEG draft decoding rounds the intermediate size."""
DECODE_ERRORS = (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError)


def image_info(data: bytes) -> tuple[int, int, str] | None:
    """``(width, height, MIME type)`` from the header alone, or None when it is no image."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                mime = Image.MIME.get(img.format or "", "")
                width, height = img.size
    except DECODE_ERRORS:
        return None
    return (width, height, mime) if mime.startswith("image/") else None


def expected_thumb(width: int, height: int, thumb_size: int) -> tuple[int, int]:
    """The size ``make_thumbnail`` gives a ``width`` × ``height`` original (never upscaled)."""
    short = min(width, height)
    if short <= thumb_size:
        return width, height
    scale = thumb_size / short
    return max(1, round(width * scale)), max(1, round(height * scale))


def thumbnail_problem(data: bytes, original: tuple[int, int], thumb_size: int) -> str | None:
    """Why ``data`` is not the thumbnail of a ``original``-sized image, or None when it is."""
    info = image_info(data)
    if info is None:
        return "is not an image"
    width, height, mime = info
    if mime != "image/jpeg":
        return f"is {mime}, not image/jpeg"
    want_w, want_h = expected_thumb(*original, thumb_size)
    short, long = sorted((width, height))
    want_short, want_long = sorted((want_w, want_h))
    if short != want_short or abs(long - want_long) > LONG_SIDE_SLACK:
        return f"is {width}×{height}, not the {want_w}×{want_h} of a thumbnail"
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except DECODE_ERRORS:
        return "does not decode"
    return None
