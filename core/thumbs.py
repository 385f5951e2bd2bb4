"""Thumbnails: one function shared by the spider (direct upload) and the backend's ingest.

A thumbnail is a JPEG whose shortest side is ``shortest_side`` pixels (never upscaled),
upright (EXIF orientation applied) and RGB (CMYK converted, transparency flattened onto
white). JPEG originals are decoded in draft mode, at the smallest DCT scale that is still
at least the target size: that halves the decode cost of a full-size runway photo.
"""

from __future__ import annotations

import io
import math
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

JPEG_QUALITY = 85
BACKGROUND = (255, 255, 255)


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


def make_thumbnail(data: bytes, shortest_side: int) -> bytes | None:
    """The JPEG thumbnail of ``data``, or None when the bytes are not a decodable image."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as original:
                _draft(original, shortest_side)
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
