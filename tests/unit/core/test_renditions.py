"""Thumbnails from a smaller rendition: when one stands in, and that it gives the same size."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rk.core.runtime.renditions import (
    Header,
    fit_problem,
    integrity_problem,
    read_header,
    rendition_thumbnail,
)
from rk.core.runtime.thumbs import make_thumbnail


def photo(size: tuple[int, int], seed: int = 1) -> Image.Image:
    """A smooth gradient with some texture: thumbnails of it can be compared by PSNR."""
    width, height = size
    y, x = np.mgrid[0:height, 0:width]
    rng = np.random.default_rng(seed)
    base = np.stack([x * 255 / width, y * 255 / height, (x + y) * 127 / (width + height)], -1)
    noise = rng.normal(0, 6, (height, width, 3))
    return Image.fromarray(np.clip(base + noise, 0, 255).astype("uint8"), "RGB")


def encode(img: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **params)
    return out.getvalue()


def rendition_of(img: Image.Image, width: int) -> bytes:
    """What a CDN serves as ``w_<width>,c_limit``: the height in proportion, rounded."""
    height = round(img.height * width / img.width)
    return encode(img.resize((width, height), Image.Resampling.LANCZOS), quality=80)


def psnr(a: bytes, b: bytes) -> float:
    x = np.asarray(Image.open(io.BytesIO(a)).convert("RGB"), dtype=np.float64)
    y = np.asarray(Image.open(io.BytesIO(b)).convert("RGB"), dtype=np.float64)
    mse = float(np.mean((x - y) ** 2))
    return 10 * np.log10(255**2 / mse) if mse else 99.0


def size_of(data: bytes | None) -> tuple[int, int]:
    assert data is not None
    return Image.open(io.BytesIO(data)).size


@pytest.mark.parametrize(
    ("size", "width", "side"),
    [((1280, 1920), 360, 256), ((1999, 513), 360, 64), ((1366, 2048), 683, 256)],
)
async def test_a_rendition_gives_the_originals_thumbnail_size(
    size: tuple[int, int], width: int, side: int
) -> None:
    img = photo(size)
    original = encode(img, quality=90)
    made = await rendition_thumbnail(original, rendition_of(img, width), side)
    assert made.problem == ""
    expected = make_thumbnail(original, side)
    assert size_of(made.thumb) == size_of(expected)
    assert made.thumb is not None
    assert expected is not None
    assert psnr(made.thumb, expected) > 30


async def test_an_upright_rendition_matches_an_original_with_an_orientation_tag() -> None:
    upright = photo((1280, 1920))
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # what the camera wrote: 1920×1280
    exif = Image.Exif()
    exif[0x0112] = 6  # turn 270° to view: the original is portrait once upright
    original = encode(stored, quality=90, exif=exif.tobytes())
    made = await rendition_thumbnail(original, rendition_of(upright, 360), 256)
    assert made.problem == ""
    assert size_of(made.thumb) == size_of(make_thumbnail(original, 256)) == (256, 384)


@pytest.mark.parametrize(
    ("rendition", "problem"),
    [
        ((360, 360), "not the shape of the original"),  # a square crop
        ((360, 545), "not the shape of the original"),  # 5 px taller than in proportion
        ((240, 360), "smaller than the 256×384 thumbnail"),
        ((1280, 1920), "no smaller than the original"),
    ],
)
def test_renditions_that_cannot_stand_in(rendition: tuple[int, int], problem: str) -> None:
    original = Header(width=1280, height=1920, format="JPEG")
    small = Header(width=rendition[0], height=rendition[1], format="JPEG")
    found = fit_problem(original, small, 256)
    assert found is not None
    assert problem in found


def test_a_pixel_of_rounding_is_the_same_shape() -> None:
    original = Header(width=1999, height=513)
    assert fit_problem(original, Header(width=360, height=93), 64) is None
    assert fit_problem(original, Header(width=360, height=92), 64) is None
    assert fit_problem(original, Header(width=360, height=90), 64) is not None


def test_only_a_whole_original_is_vouched_for_without_a_decode() -> None:
    img = photo((400, 600))
    jpeg = encode(img, quality=90)
    png = encode(img, "PNG")
    for data in (jpeg, png, jpeg + b"\0" * 100):
        header = read_header(data)
        assert header is not None
        assert integrity_problem(data, header) is None
    for data, problem in [
        (jpeg[: len(jpeg) // 2], "JPEG end marker missing"),
        (png[: len(png) - 20], "PNG end marker missing"),
        (encode(img, "GIF"), "no cheap integrity check for GIF"),
    ]:
        header = read_header(data)
        assert header is not None
        assert problem in (integrity_problem(data, header) or "")
    header = read_header(jpeg)
    assert header is not None
    assert "too many pixels" in (integrity_problem(jpeg, header, max_pixels=1000) or "")


async def test_problems_leave_the_thumbnail_to_the_original() -> None:
    img = photo((1280, 1920))
    original = encode(img, quality=90)
    small = rendition_of(img, 360)
    cases = [
        (original[: len(original) // 2], small, "end marker missing"),
        (original, b"<html>not found</html>", "rendition is not an image"),
        (original, small[: len(small) // 2], "rendition does not decode"),
        (b"nothing", small, "original is not an image"),
    ]
    for big, rendition, problem in cases:
        made = await rendition_thumbnail(big, rendition, 256)
        assert made.thumb is None
        assert problem in made.problem
