"""How close thumbnails are to a reference: PSNR, and the references the benchmarks use.

``bench.spider_media`` compares rk's thumbnails with the previous recipe and with a full
decode; it and ``bench.ingest_worker`` compare thumbnails made from the sites' renditions
with those made from the originals.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

import numpy as np
from PIL import Image

from rk.core.config import MediaSettings
from rk.core.runtime.renditions import read_header
from rk.core.runtime.thumbs import JPEG_QUALITY, make_thumbnail

SIDE = MediaSettings().thumb_size
"""The thumbnail size compared (rk's default, 256)."""


def previous_thumbnail(data: bytes, side: int) -> bytes:
    """The recipe rk used before (draft decode, Lanczos, optimized Huffman): the reference."""
    with Image.open(io.BytesIO(data)) as img:
        img.draft("RGB", (img.width * side // min(img.size), img.height * side // min(img.size)))
        scale = side / min(img.size)
        size = (round(img.width * scale), round(img.height * scale))
        small = img.convert("RGB").resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    out = io.BytesIO()
    small.save(out, "JPEG", quality=85, optimize=True)
    return out.getvalue()


def draft_decode(data: bytes, side: int = SIDE) -> None:
    """Only the decode a thumbnail of this JPEG needs (draft to the least DCT scale that
    still covers ``side``), nothing after it: the least CPU any thumbnail of it can cost,
    since every coefficient is entropy-decoded whatever the scale."""
    with Image.open(io.BytesIO(data)) as img:
        scale = side / min(img.size)
        img.draft("RGB", (math.ceil(img.width * scale), math.ceil(img.height * scale)))
        img.load()


def full_decode(data: bytes, side: int = SIDE) -> Image.Image:
    """The reference a shrunk decode approximates: the full image, Lanczos, not re-encoded."""
    with Image.open(io.BytesIO(data)) as img:
        scale = side / min(img.size)
        size = (round(img.width * scale), round(img.height * scale))
        return img.convert("RGB").resize(size, Image.Resampling.LANCZOS)


def jpeg_of(img: Image.Image) -> bytes:
    """``img`` written as rk writes thumbnails."""
    out = io.BytesIO()
    img.save(out, "JPEG", quality=JPEG_QUALITY)
    return out.getvalue()


def psnr(
    images: list[bytes],
    reference: Callable[[bytes], Image.Image],
    make: Callable[[bytes], bytes | None] = lambda data: make_thumbnail(data, SIDE),
) -> tuple[float, float]:
    """(mean, worst) PSNR in dB of rk's thumbnails (or ``make``'s) against ``reference(data)``."""
    values = []
    for data in images:
        made = make(data)
        assert made is not None
        values.append(psnr_db(made, reference(data)))
    return sum(values) / len(values), min(values)


def psnr_db(made: bytes, reference: Image.Image) -> float:
    """PSNR in dB of the JPEG ``made`` against ``reference`` (the same size)."""
    with Image.open(io.BytesIO(made)) as a:
        assert a.size == reference.size, (a.size, reference.size)
        x = np.asarray(a.convert("RGB"), dtype=np.float64)
        y = np.asarray(reference.convert("RGB"), dtype=np.float64)
    return 10 * math.log10(255**2 / max(float(((x - y) ** 2).mean()), 1e-12))


def rendition_psnr(smalls: dict[bytes, bytes]) -> tuple[float, float]:
    """(mean, worst) PSNR of thumbnails made from renditions (original → rendition) against
    rk's thumbnails of the originals."""
    return psnr(list(smalls), original_made, make=lambda data: from_rendition(data, smalls))


def original_made(data: bytes) -> Image.Image:
    """rk's thumbnail of the original, decoded."""
    made = make_thumbnail(data, SIDE)
    assert made is not None
    return Image.open(io.BytesIO(made))


def from_rendition(data: bytes, smalls: dict[bytes, bytes]) -> bytes | None:
    """The thumbnail rk makes of ``data`` from its rendition (the original's size, ``fit``)."""
    header = read_header(data)
    assert header is not None
    return make_thumbnail(smalls[data], SIDE, fit=header.thumb(SIDE))


def previous(data: bytes) -> Image.Image:
    """The previous recipe's thumbnail, decoded."""
    return Image.open(io.BytesIO(previous_thumbnail(data, SIDE)))
