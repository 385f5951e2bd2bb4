"""The committed tiny CLIP export and the image bytes the clip_embed tests feed it."""

from __future__ import annotations

import io
import json
import shutil
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

TINY_CLIP = Path(__file__).resolve().parent / "tiny_clip"


def reference() -> dict[str, Any]:
    """The torch embeddings recorded when the tiny model was made (see make_tiny_clip.py)."""
    return json.loads((TINY_CLIP / "reference.json").read_text(encoding="utf-8"))


def image_bytes(name: str) -> bytes:
    """One of the committed test images (gradient.png, checker.png, rings.png)."""
    return (TINY_CLIP / "images" / name).read_bytes()


def copy_model(dest: Path, *, without: tuple[str, ...] = ()) -> Path:
    """A copy of the tiny export in ``dest``, minus the files named in ``without``."""
    shutil.copytree(TINY_CLIP, dest, ignore=shutil.ignore_patterns("images", *without))
    return dest


def encode(image: Image.Image, fmt: str = "JPEG", **options: Any) -> bytes:
    """``image`` saved in ``fmt``."""
    buf = io.BytesIO()
    image.save(buf, format=fmt, **options)
    return buf.getvalue()


def reencoded_resized(data: bytes, size: tuple[int, int], quality: int = 80) -> bytes:
    """The same picture, resized and saved as a JPEG (what a CDN does to an upload)."""
    image = Image.open(io.BytesIO(data)).convert("RGB").resize(size, Image.Resampling.LANCZOS)
    return encode(image, "JPEG", quality=quality)


def noise_jpeg(width: int, height: int, seed: int = 0) -> bytes:
    """A JPEG of random colours (no two decoders agree on it by accident)."""
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    return encode(Image.fromarray(pixels), "JPEG", quality=90)


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width``×``height`` but carries almost no pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def jpeg_claiming(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header (SOF0) is patched to claim ``width``×``height``."""
    data = bytearray(encode(Image.new("RGB", (16, 16), (200, 30, 30)), "JPEG"))
    at = data.index(b"\xff\xc0")
    data[at + 5 : at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def truncated_jpeg() -> bytes:
    """The first half of a real JPEG."""
    data = noise_jpeg(64, 48)
    return data[: len(data) // 2]


HTML = b"<!doctype html><html><body>403 Forbidden</body></html>"
