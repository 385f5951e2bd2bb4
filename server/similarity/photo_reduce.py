"""An uploaded search photo reduced to what a model needs, its size checked from the header first.

A search photo is only seen at the model's input size (224 px for the CLIP models), so
nothing much larger than ``SIDE`` px on its short side is decoded or passed on:

- a JPEG is decoded at a reduced DCT scale (``draft``: 1/2 to 1/8 per side), so even a
  40-megapixel one costs well under a megapixel of memory;
- any other format (PNG, WebP, GIF…) has no reduced decode, so its header's pixel count is
  checked against ``max_pixels`` before a single pixel is decoded (a 110 KiB 6300×6300 PNG
  would otherwise take 120 MB);
- a picture larger than needed is resized and handed on as a PNG; a small one as it came.

Runs in a worker thread; raises BadPicture (422) or PictureTooLarge (413), never anything else
for bad input.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from rk.server.platform.http.errors import ApiError

SIDE = 448
"""Short side handed to the model: twice CLIP's 224-pixel input, so its own resize still
has detail to work with."""
MAX_PIXELS = 40_000_000
"""No picture of more pixels is opened at all, JPEG included (a 40 MP photo is a large one)."""
KEEP_MODES = {"RGB", "RGBA", "L", "LA"}
NOT_AN_IMAGE = "the upload is not an image rk can read (JPEG, PNG, WebP…)"


class BadPicture(ApiError):
    """The upload is not a picture rk can read (422), or far too large a one (413)."""

    status_code = 422


class PictureTooLarge(BadPicture):
    """More pixels than any photo needs: refused from the header, before decoding."""

    status_code = 413


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1_000_000:g} megapixels"


def _check_size(image: Image.Image, max_pixels: int, side: int) -> None:
    """Refuse a picture whose decoded size would be over the caps (header only; JPEG drafted)."""
    width, height = image.size
    if width < 1 or height < 1:
        raise BadPicture(NOT_AN_IMAGE)
    if width * height > MAX_PIXELS:
        raise PictureTooLarge(
            f"the picture is {width}×{height} pixels; at most {_megapixels(MAX_PIXELS)}"
        )
    if image.format == "JPEG":
        image.draft(image.mode, (side, side))
    decoded = image.size[0] * image.size[1]
    if decoded > max_pixels:
        kind = image.format or "picture"
        raise PictureTooLarge(
            f"the picture is {width}×{height} pixels; a {kind} may have at most"
            f" {_megapixels(max_pixels)} (a JPEG up to {_megapixels(MAX_PIXELS)})"
        )


def _rgb(image: Image.Image) -> Image.Image:
    """A mode PNG keeps as is (RGB, RGBA, L, LA); transparency kept as alpha."""
    if image.mode in KEEP_MODES:
        return image
    alpha = image.mode in {"PA", "RGBa", "La"} or "transparency" in image.info
    return image.convert("RGBA" if alpha else "RGB")


def check_photo(data: bytes, max_pixels: int, side: int = SIDE) -> None:
    """Raise unless ``data`` is a picture within the caps (read from its header only)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                _check_size(image, max_pixels, side)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise BadPicture(NOT_AN_IMAGE) from None


def _reduced(image: Image.Image, side: int) -> bytes:
    """``image`` (opened, within the caps) decoded, upright, short side at most ``side``, as PNG."""
    image.load()
    ImageOps.exif_transpose(image, in_place=True)
    upright = _rgb(image)
    width, height = upright.size
    scale = side / min(width, height)
    if scale < 1:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        upright = upright.resize(size, Image.Resampling.BICUBIC, reducing_gap=2.0)
    out = io.BytesIO()
    upright.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def reduce_photo(data: bytes, max_pixels: int, side: int = SIDE) -> bytes:
    """``data`` as the embedder should get it: as it came when small, else reduced to PNG."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                header = image.size
                _check_size(image, max_pixels, side)
                if min(image.size) <= side and image.size == header:
                    return data
                return _reduced(image, side)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise BadPicture(NOT_AN_IMAGE) from None
