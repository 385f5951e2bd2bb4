"""Thumbnails: one function shared by the spider (direct upload) and the backend's ingest.

A thumbnail is a JPEG whose shortest side is ``shortest_side`` pixels (never upscaled),
upright (EXIF orientation applied) and RGB (CMYK converted, transparency flattened onto
white). JPEG originals are decoded in draft mode, at the smallest DCT scale that is still
at least the target size: that halves the decode cost of a full-size runway photo.
"""

from __future__ import annotations

import io
import math
import threading
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

JPEG_QUALITY = 85
BACKGROUND = (255, 255, 255)
MAX_PIXELS = 40_000_000
"""The most pixels rk decodes from one image (after JPEG draft scaling): 160 MB as RGBA.

A 657 KB PNG can claim 13000×13000 RGBA pixels (676 MB decoded); sizes are read from the
header and checked before any pixel is decoded."""
DECODES = threading.BoundedSemaphore(2)
"""Full decodes at once per process, so peak memory stays near 2 × MAX_PIXELS × 4 bytes."""


def pixel_problem(width: int, height: int, max_pixels: int = MAX_PIXELS) -> str | None:
    """Why an image of this size is not decoded (too many pixels), or None."""
    if width * height <= max_pixels:
        return None
    return f"too many pixels ({width}×{height}; at most {max_pixels / 1e6:g} Mpx)"


def _draft(img: Image.Image, shortest_side: int) -> None:
    """Let the JPEG decoder scale down by 1/2, 1/4 or 1/8 while staying above the target."""
    if img.format != "JPEG":
        return
    width, height = img.size
    scale = shortest_side / min(width, height)
    if scale < 1:
        img.draft(img.mode, (math.ceil(width * scale), math.ceil(height * scale)))


def _flatten(img: Image.Image) -> Image.Image:
    """RGB: transparency composited onto white, CMYK/palette/greyscale converted."""
    if img.mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    if img.mode in {"RGBA", "LA", "PA"} or (
        img.mode in {"L", "RGB"} and "transparency" in img.info
    ):
        rgba = img.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, BACKGROUND)
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas
    return img if img.mode == "RGB" else img.convert("RGB")


def make_thumbnail(data: bytes, shortest_side: int, max_pixels: int = MAX_PIXELS) -> bytes | None:
    """The JPEG thumbnail of ``data``; None when it does not decode or has too many pixels."""
    try:
        with warnings.catch_warnings(), DECODES:
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as original:
                _draft(original, shortest_side)
                if pixel_problem(*original.size, max_pixels):
                    return None
                img = ImageOps.exif_transpose(original)
                img = _flatten(img)
                width, height = img.size
                if min(width, height) > shortest_side:
                    scale = shortest_side / min(width, height)
                    size = (
                        max(1, round(width * scale)),
                        max(1, round(height * scale)),
                    )
                    img = img.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
                out = io.BytesIO()
                img.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    return out.getvalue()
