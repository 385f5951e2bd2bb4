"""make_thumbnail: sizes, orientation, colour modes, transparency and undecodable input."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rk.core.runtime import thumbs
from rk.core.runtime.thumbs import make_thumbnail, thumbnail


def encode(img: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **params)
    return out.getvalue()


def halves(size: tuple[int, int], left: str, right: str, mode: str = "RGB") -> Image.Image:
    """An image whose left half is ``left`` and right half ``right``."""
    img = Image.new(mode, size, left)
    img.paste(Image.new(mode, (size[0] // 2, size[1]), right), (size[0] // 2, 0))
    return img


def open_thumb(data: bytes | None) -> Image.Image:
    assert data is not None
    img = Image.open(io.BytesIO(data))
    assert img.format == "JPEG"
    assert img.mode == "RGB"
    return img


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tol: int = 24) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(pixel, colour, strict=True))


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((1000, 600), (427, 256)),
        ((600, 1000), (256, 427)),
        ((1280, 1920), (256, 384)),
        ((4000, 6000), (256, 384)),
        ((256, 900), (256, 900)),
        ((120, 80), (120, 80)),
    ],
)
def test_shortest_side_is_the_target_and_never_upscaled(
    size: tuple[int, int], expected: tuple[int, int]
) -> None:
    data = encode(Image.new("RGB", size, (200, 30, 30)), "JPEG", quality=90)
    thumb = open_thumb(make_thumbnail(data, 256))
    assert thumb.size == expected
    assert near(thumb.getpixel((thumb.width // 2, thumb.height // 2)), (200, 30, 30))


def test_other_target_size() -> None:
    data = encode(Image.new("RGB", (900, 1200), "white"), "JPEG")
    assert open_thumb(make_thumbnail(data, 100)).size == (100, 133)


def test_draft_decoded_jpeg_keeps_its_content() -> None:
    # 3000x2000 scales by 1/8 in draft mode only if the result stays >= 256: content intact.
    data = encode(halves((3000, 2000), "red", "blue"), "JPEG", quality=90)
    thumb = open_thumb(make_thumbnail(data, 256))
    assert thumb.size == (384, 256)
    assert near(thumb.getpixel((40, 128)), (255, 0, 0), tol=40)
    assert near(thumb.getpixel((340, 128)), (0, 0, 255), tol=40)


def test_exif_orientation_is_applied() -> None:
    # Stored landscape, left red / right blue; orientation 6 = display rotated 90° clockwise,
    # so the viewer sees a portrait image with red on top.
    img = halves((800, 600), "red", "blue")
    exif = Image.Exif()
    exif[0x0112] = 6
    thumb = open_thumb(make_thumbnail(encode(img, "JPEG", exif=exif.tobytes()), 256))
    assert thumb.size == (256, 341)
    assert near(thumb.getpixel((128, 40)), (255, 0, 0), tol=40)
    assert near(thumb.getpixel((128, 300)), (0, 0, 255), tol=40)


def test_cmyk_jpeg_becomes_rgb() -> None:
    cmyk = Image.new("CMYK", (600, 400), (0, 255, 255, 0))  # pure red in CMYK
    thumb = open_thumb(make_thumbnail(encode(cmyk, "JPEG", quality=95), 256))
    assert thumb.size == (384, 256)
    assert near(thumb.getpixel((192, 128)), (255, 0, 0), tol=40)


def test_png_with_alpha_is_flattened_onto_white() -> None:
    img = Image.new("RGBA", (600, 400), (0, 0, 0, 0))
    img.paste(Image.new("RGBA", (300, 400), (0, 128, 0, 255)), (0, 0))
    thumb = open_thumb(make_thumbnail(encode(img, "PNG"), 256))
    assert thumb.size == (384, 256)
    assert near(thumb.getpixel((60, 128)), (0, 128, 0))
    assert near(thumb.getpixel((320, 128)), (255, 255, 255))


def test_palette_png_with_transparency() -> None:
    img = Image.new("P", (400, 400), 0)
    img.putpalette([0, 0, 0, 10, 20, 200] + [0] * 762)
    img.paste(1, (0, 0, 200, 400))
    thumb = open_thumb(make_thumbnail(encode(img, "PNG", transparency=0), 256))
    assert near(thumb.getpixel((50, 128)), (10, 20, 200))
    assert near(thumb.getpixel((200, 128)), (255, 255, 255))


@pytest.mark.parametrize("mode", ["L", "I;16", "1"])
def test_other_modes_become_rgb(mode: str) -> None:
    img = Image.new(mode, (500, 300))
    open_thumb(make_thumbnail(encode(img, "PNG"), 256))


def test_webp_and_gif() -> None:
    webp = encode(Image.new("RGB", (640, 480), "navy"), "WEBP")
    gif = encode(Image.new("P", (640, 480), 3), "GIF")
    assert open_thumb(make_thumbnail(webp, 256)).size == (341, 256)
    assert open_thumb(make_thumbnail(gif, 256)).size == (341, 256)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"<html>not an image</html>",
        b"\xff\xd8\xff\xe0" + b"\x00" * 64,
    ],
)
def test_undecodable_is_none(data: bytes) -> None:
    assert make_thumbnail(data, 256) is None


def test_truncated_jpeg_is_none() -> None:
    data = encode(Image.new("RGB", (800, 600), "red"), "JPEG")
    assert make_thumbnail(data[: len(data) // 2], 256) is None


def psnr(a: Image.Image, b: Image.Image) -> float:
    """Peak signal-to-noise ratio of two same-sized RGB images, in dB."""
    x = np.asarray(a.convert("RGB"), dtype=np.float64)
    y = np.asarray(b.convert("RGB"), dtype=np.float64)
    return float(10 * np.log10(255**2 / max(((x - y) ** 2).mean(), 1e-12)))


def smooth(size: tuple[int, int]) -> Image.Image:
    """A photo-like image: coarse random colours, bilinearly enlarged to ``size``."""
    rng = np.random.default_rng(7)
    coarse = Image.fromarray(rng.integers(0, 256, (60, 40, 3), dtype=np.uint8))
    return coarse.resize(size, Image.Resampling.BILINEAR)


@pytest.mark.parametrize(
    "size", [(1280, 1920), (1001, 1503), (257, 1000), (1999, 513), (2049, 2049), (4001, 6007)]
)
def test_size_and_content_are_the_full_decode_recipes(size: tuple[int, int]) -> None:
    """A shrunk decode (DCT scaling rounds sizes up) gives a full decode's size and content."""
    data = encode(smooth(size), "JPEG", quality=85)
    with Image.open(io.BytesIO(data)) as full:
        scale = 256 / min(size)
        target = (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))
        reference = full.convert("RGB").resize(target, Image.Resampling.LANCZOS)
    floor = psnr(open_thumb(encode(reference, "JPEG", quality=thumbs.JPEG_QUALITY)), reference)
    thumb = open_thumb(make_thumbnail(data, 256))
    assert thumb.size == reference.size
    assert psnr(thumb, reference) > floor - 1.0


def test_orientation_after_a_shrunk_decode() -> None:
    """Orientation 6 on a size DCT scaling rounds: the turned size of a full decode."""
    exif = Image.Exif()
    exif[0x0112] = 6
    data = encode(halves((1999, 513), "red", "blue"), "JPEG", exif=exif.tobytes())
    thumb = open_thumb(make_thumbnail(data, 256))
    assert thumb.size == (256, 998)
    assert near(thumb.getpixel((128, 100)), (255, 0, 0), tol=40)
    assert near(thumb.getpixel((128, 900)), (0, 0, 255), tol=40)


def test_shrunk_decode_loses_nothing_beyond_the_jpeg_encode() -> None:
    """Draft decode + bicubic are as close to a full decode + Lanczos as q85 JPEG allows."""
    rng = np.random.default_rng(7)
    coarse = Image.fromarray(rng.integers(0, 256, (60, 40, 3), dtype=np.uint8))
    data = encode(coarse.resize((1280, 1920), Image.Resampling.BILINEAR), "JPEG", quality=85)
    with Image.open(io.BytesIO(data)) as full:
        reference = full.convert("RGB").resize((256, 384), Image.Resampling.LANCZOS)
    floor = psnr(open_thumb(encode(reference, "JPEG", quality=thumbs.JPEG_QUALITY)), reference)
    thumb = open_thumb(make_thumbnail(data, 256))
    assert thumb.size == reference.size
    assert psnr(thumb, reference) > floor - 0.5


async def test_thumbnail_runs_in_a_pool_of_one_thread_per_core() -> None:
    """``thumbnail`` gives make_thumbnail's bytes, from a pool no wider than the cores."""
    data = encode(Image.new("RGB", (900, 1200), (10, 120, 200)), "JPEG")
    assert await thumbnail(data, 100) == make_thumbnail(data, 100)
    assert thumbs._pool()._max_workers == thumbs.pool_size() >= 1
