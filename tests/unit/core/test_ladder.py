"""The rendition ladder: its widths (never upscaled), sizes, orientation, colour, its keys
(content-addressed by the original) and that the same original always gives the same rungs."""

from __future__ import annotations

import asyncio
import hashlib
import io
import threading

import pytest
from PIL import Image

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import (
    RENDITION_KEY,
    RENDITION_WIDTHS,
    image_object_keys,
    is_media_key,
    rendition_key,
    rendition_keys,
    rendition_originals,
)
from rk.core.media_urls import check_upload_target
from rk.core.runtime.ladder import Rung, ladder, ladder_widths, make_ladder
from rk.core.runtime.thumbs import in_pool

SHA1 = "0123456789abcdef0123456789abcdef01234567"


def encode(img: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **params)
    return out.getvalue()


def halves(size: tuple[int, int], top: str, bottom: str, mode: str = "RGB") -> Image.Image:
    """An image whose top half is ``top`` and bottom half ``bottom``."""
    img = Image.new(mode, size, top)
    img.paste(Image.new(mode, (size[0], size[1] - size[1] // 2), bottom), (0, size[1] // 2))
    return img


def opened(rung: Rung) -> Image.Image:
    img = Image.open(io.BytesIO(rung.data))
    assert img.format == "WEBP"
    assert img.mode == "RGB"
    assert img.size == (rung.width, rung.height)
    return img


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tol: int = 30) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(pixel, colour, strict=True))


@pytest.mark.parametrize(
    ("width", "widths"),
    [
        (2560, (360, 560, 640, 800, 1200, 1600)),
        (1601, (360, 560, 640, 800, 1200, 1600)),
        (1600, (360, 560, 640, 800, 1200)),
        (1280, (360, 560, 640, 800, 1200)),
        (801, (360, 560, 640, 800)),
        (800, (360, 560, 640)),
        (600, (360, 560)),
        (361, (360,)),
        (360, ()),
        (120, ()),
    ],
)
def test_every_rung_is_narrower_than_the_original(width: int, widths: tuple[int, ...]) -> None:
    assert ladder_widths(width) == widths
    assert set(widths) <= set(RENDITION_WIDTHS)


@pytest.mark.parametrize(
    ("size", "rungs"),
    [
        ((1280, 1920), [(360, 540), (560, 840), (640, 960), (800, 1200), (1200, 1800)]),
        (
            (2560, 3840),
            [(360, 540), (560, 840), (640, 960), (800, 1200), (1200, 1800), (1600, 2400)],
        ),
        (
            (1800, 1200),
            [(360, 240), (560, 373), (640, 427), (800, 533), (1200, 800), (1600, 1067)],
        ),
        ((600, 900), [(360, 540), (560, 840)]),
        ((300, 450), []),
    ],
)
def test_rungs_keep_the_shape_and_are_never_upscaled(
    size: tuple[int, int], rungs: list[tuple[int, int]]
) -> None:
    data = encode(halves(size, "red", "blue"), "JPEG", quality=90)
    made = make_ladder(data)
    assert made is not None
    assert [(rung.width, rung.height) for rung in made] == rungs
    for rung in made:
        img = opened(rung)
        assert near(img.getpixel((rung.width // 2, rung.height // 8)), (255, 0, 0))
        assert near(img.getpixel((rung.width // 2, rung.height * 7 // 8)), (0, 0, 255))


def test_a_large_jpeg_is_decoded_small_and_keeps_its_content() -> None:
    # 4000×6000 drafts to 2000×3000, still wider than the 1600 rung: every rung is intact.
    data = encode(halves((4000, 6000), "red", "blue"), "JPEG", quality=90)
    made = make_ladder(data)
    assert made is not None
    assert [rung.width for rung in made] == [360, 560, 640, 800, 1200, 1600]
    img = opened(made[-1])
    assert near(img.getpixel((800, 200)), (255, 0, 0))
    assert near(img.getpixel((800, 2200)), (0, 0, 255))


def test_exif_orientation_is_applied() -> None:
    # Stored 1500×1000, left red / right blue; orientation 6 shows it turned 90° clockwise:
    # 1000×1500 upright, red on top.
    img = Image.new("RGB", (1500, 1000), "red")
    img.paste(Image.new("RGB", (750, 1000), "blue"), (750, 0))
    exif = Image.Exif()
    exif[0x0112] = 6
    made = make_ladder(encode(img, "JPEG", exif=exif.tobytes()))
    assert made is not None
    shapes = [(rung.width, rung.height) for rung in made]
    assert shapes == [(360, 540), (560, 840), (640, 960), (800, 1200)]
    upright = opened(made[0])
    assert near(upright.getpixel((180, 60)), (255, 0, 0))
    assert near(upright.getpixel((180, 480)), (0, 0, 255))


def test_transparency_is_flattened_onto_white() -> None:
    img = Image.new("RGBA", (800, 1200), (0, 0, 0, 0))
    img.paste(Image.new("RGBA", (800, 600), (0, 128, 0, 255)), (0, 0))
    made = make_ladder(encode(img, "PNG"))
    assert made is not None
    rung = opened(made[0])
    assert near(rung.getpixel((180, 60)), (0, 128, 0))
    assert near(rung.getpixel((180, 480)), (255, 255, 255))


def test_the_same_original_always_gives_the_same_rungs() -> None:
    data = encode(halves((1280, 1920), "white", "black"), "JPEG")
    assert make_ladder(data) == make_ladder(data)


@pytest.mark.parametrize("data", [b"", b"<html>not an image</html>", b"\xff\xd8\xff\xe0 truncated"])
def test_what_does_not_decode_has_no_ladder(data: bytes) -> None:
    assert make_ladder(data) is None


def test_too_many_pixels_have_no_ladder() -> None:
    data = encode(Image.new("RGB", (1000, 1000), "white"), "PNG")
    assert make_ladder(data, max_pixels=999_999) is None


def test_ladder_runs_in_the_thumbnail_pool() -> None:
    data = encode(Image.new("RGB", (700, 1050), "white"), "JPEG")
    made = asyncio.run(ladder(data))
    assert made is not None
    assert [rung.width for rung in made] == [360, 560, 640]
    name = asyncio.run(in_pool(lambda: threading.current_thread().name))
    assert name.startswith("rk-thumb")


def test_rendition_keys_name_the_original() -> None:
    digest = hashlib.sha1(b"an original").hexdigest()
    assert rendition_key(640, digest) == f"r/640/{digest}.webp"
    assert rendition_keys(digest) == [f"r/{w}/{digest}.webp" for w in RENDITION_WIDTHS]
    assert all(is_media_key(key) for key in rendition_keys(digest))
    assert rendition_originals(rendition_key(640, digest)) == [
        f"runway/{digest}.jpg",
        f"street/{digest}.jpg",
    ]
    assert rendition_originals(f"runway/{digest}.jpg") is None
    assert image_object_keys(f"street/{digest}.jpg", f"thumb/{digest}.jpg") == [
        f"street/{digest}.jpg",
        f"thumb/{digest}.jpg",
        *rendition_keys(digest),
    ]


@pytest.mark.parametrize(
    "key",
    [
        f"r/0640/{SHA1}.webp",
        f"r/640/{SHA1}.jpg",
        f"r/640/{SHA1.upper()}.webp",
        f"r/640/{SHA1}.webp\n",
        f"r/12345/{SHA1}.webp",
        f"r/640/../{SHA1}.webp",
        f"r/{SHA1}.webp",
    ],
)
def test_bad_rendition_keys(key: str) -> None:
    assert not RENDITION_KEY.match(key)
    assert not is_media_key(key)
    assert rendition_originals(key) is None


def test_nobody_uploads_a_rendition() -> None:
    with pytest.raises(InvalidKey, match="is a rendition: the backend makes those"):
        check_upload_target(rendition_key(640, SHA1), 100, SHA1)
