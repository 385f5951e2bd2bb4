"""Thumbnails from a site's smaller rendition of a photo instead of its full-size original.

Decoding the original is most of the CPU an image costs (``rk.core.runtime.thumbs``); the sites
serve the same photo a few hundred pixels wide, which decodes in about a millisecond. A
rendition stands in only when the thumbnail it gives is the original's own: its upright
aspect ratio is within a pixel of the original's, it covers the thumbnail's size (never
upscaled), and the thumbnail is made at exactly the size ``make_thumbnail`` would give the
original (``fit``). The original is then never decoded, so it is checked cheaply instead:
its header parses, its pixel count is within ``MAX_PIXELS``, and its end marker (JPEG EOI,
PNG IEND) is there, which a truncated download lacks. An original that cannot be vouched
for that way (another format) is decoded in full, as before.
"""

from __future__ import annotations

import io
import warnings

from msgspec import Struct
from PIL import Image, UnidentifiedImageError

from rk.core.runtime.thumbs import (
    MAX_PIXELS,
    orientation_of,
    pixel_problem,
    thumb_size,
    thumbnail,
    upright_size,
)

TAIL = 1024
"""Bytes at the end of a file searched for its end marker: room for trailing padding."""
END_MARKERS = {"JPEG": b"\xff\xd9", "PNG": b"IEND\xaeB`\x82"}
"""What a complete file of each format ends with (an entropy-coded JPEG stuffs every 0xFF
byte, so ``FF D9`` appears there only as the end-of-image marker)."""
_ERRORS = (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError)


class Header(Struct, frozen=True, kw_only=True):
    """What an image's header says: stored size, EXIF orientation, format and MIME type."""

    width: int
    height: int
    orientation: int = 1
    format: str = ""
    mime: str = ""

    @property
    def upright(self) -> tuple[int, int]:
        """Width and height once the EXIF orientation is applied."""
        return upright_size((self.width, self.height), self.orientation)

    def thumb(self, shortest_side: int) -> tuple[int, int]:
        """The upright size of the thumbnail ``make_thumbnail`` makes of this image."""
        return thumb_size((self.width, self.height), self.orientation, shortest_side)


def read_header(data: bytes) -> Header | None:
    """The image's header (no pixel decoded), or None when ``data`` is not an image."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                fmt = img.format or ""
                return Header(
                    width=img.size[0],
                    height=img.size[1],
                    orientation=orientation_of(img),
                    format=fmt,
                    mime=Image.MIME.get(fmt, ""),
                )
    except _ERRORS:
        return None


def integrity_problem(data: bytes, header: Header, max_pixels: int = MAX_PIXELS) -> str | None:
    """Why the cheap check cannot vouch for a whole, decodable original, or None.

    The check is the header (already parsed), the pixel count and the end marker; a format
    without a known marker is left to a full decode.
    """
    if problem := pixel_problem(header.width, header.height, max_pixels):
        return problem
    marker = END_MARKERS.get(header.format)
    if marker is None:
        return f"no cheap integrity check for {header.format or 'this format'}"
    if data.rfind(marker, max(0, len(data) - TAIL)) == -1:
        return f"{header.format} end marker missing (truncated?)"
    return None


def fit_problem(original: Header, rendition: Header, shortest_side: int) -> str | None:
    """Why ``rendition`` cannot stand in for ``original``'s thumbnail, or None.

    Upright sizes are compared, so a rendition the site turned upright (and whose EXIF it
    dropped) still matches an original that carries an orientation tag.
    """
    big_w, big_h = original.upright
    small_w, small_h = rendition.upright
    if small_w * small_h >= big_w * big_h:
        return f"rendition {small_w}×{small_h} is no smaller than the original {big_w}×{big_h}"
    if abs(small_h - small_w * big_h / big_w) > 1 and abs(small_w - small_h * big_w / big_h) > 1:
        return f"rendition {small_w}×{small_h} is not the shape of the original {big_w}×{big_h}"
    want_w, want_h = original.thumb(shortest_side)
    if small_w < want_w or small_h < want_h:
        return f"rendition {small_w}×{small_h} is smaller than the {want_w}×{want_h} thumbnail"
    return None


class FromRendition(Struct, frozen=True, kw_only=True):
    """A thumbnail made from a rendition, or why it was not (then the original is used)."""

    thumb: bytes | None = None
    problem: str = ""


async def rendition_thumbnail(
    original: bytes, rendition: bytes, shortest_side: int, header: Header | None = None
) -> FromRendition:
    """The original's thumbnail made from ``rendition``, at exactly the original's thumbnail
    size; ``problem`` says why not (the original is then decoded as before).

    ``header`` is the original's, when the caller has read it already.
    """
    big = header or read_header(original)
    if big is None:
        return FromRendition(problem="original is not an image")
    small = read_header(rendition)
    if small is None:
        return FromRendition(problem="rendition is not an image")
    problem = integrity_problem(original, big) or fit_problem(big, small, shortest_side)
    if problem:
        return FromRendition(problem=problem)
    thumb = await thumbnail(rendition, shortest_side, fit=big.thumb(shortest_side))
    if thumb is None:
        return FromRendition(problem="rendition does not decode")
    return FromRendition(thumb=thumb)
