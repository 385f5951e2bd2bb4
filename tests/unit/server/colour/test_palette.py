"""Palettes of generated flat-colour garments: the known colour first, by ΔE00 < 10.

Each picture is a figure on a plain backdrop (white, grey or off-white) with a skin-toned
head, arms and legs and one garment of a single colour, saved as a JPEG thumbnail
(``tests.support.garments``): the backdrop and the skin must be discounted for the garment's
colour to come first.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rk.server.colour import Palette, UnreadableImage, colours_for_thumbnail, named_colours
from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import lab_of_hex
from rk.server.colour.palette import CLUSTERS
from tests.support.garments import BACKDROPS, SHAPES, SKINS, garment_picture

SWATCHES = named_colours()


def first_delta_e(palette: Palette, hex_value: str) -> float:
    """ΔE00 between the palette's first colour and ``hex_value``."""
    first = palette.colours[0]
    return float(delta_e_2000(lab_of_hex(hex_value), [first.l, first.a, first.b]))


def well_formed(palette: Palette) -> None:
    shares = [colour.share for colour in palette.colours]
    assert 1 <= len(shares) <= CLUSTERS
    assert shares == sorted(shares, reverse=True)
    assert sum(shares) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("n", range(len(SWATCHES)), ids=[s.name for s in SWATCHES])
def test_every_named_colour_comes_first_on_a_garment(n: int) -> None:
    swatch = SWATCHES[n]
    picture = garment_picture(
        swatch.hex,
        shape=SHAPES[n % 3],
        backdrop=BACKDROPS[(n // 3) % 3],
        skin=SKINS[(n // 9) % 3],
        seed=n,
    )
    palette = colours_for_thumbnail(picture)
    well_formed(palette)
    assert first_delta_e(palette, swatch.hex) < 10, palette
    assert palette.colours[0].name == swatch.name
    assert palette.colours[0].share > 0.7


@pytest.mark.parametrize("backdrop", BACKDROPS)
@pytest.mark.parametrize("colour", ["#c8102e", "#1c2541", "#b98a58", "#f7f7f5", "#8a8a8a"])
def test_backdrops_and_skin_are_discounted(colour: str, backdrop: str) -> None:
    """Red, navy, camel (near skin), white and grey (near the backdrops) on each backdrop."""
    for shape, skin in zip(SHAPES, SKINS, strict=True):
        palette = colours_for_thumbnail(
            garment_picture(colour, shape=shape, backdrop=backdrop, skin=skin)
        )
        assert first_delta_e(palette, colour) < 10, (shape, skin, palette)


def test_a_skin_toned_garment_is_kept() -> None:
    """A nude dress on a model of the same skin tone: the skin band cannot discount it all."""
    palette = colours_for_thumbnail(garment_picture("#e8bfa0", skin="#e8bfa0"))
    assert first_delta_e(palette, "#e8bfa0") < 10


def test_a_close_crop_keeps_the_garment_that_fills_the_border() -> None:
    out = io.BytesIO()
    pixels = np.full((384, 256, 3), (0x7E, 0x1B, 0x34), dtype=np.uint8)
    pixels[170:210, 100:156] = (0xF0, 0xF0, 0xF0)  # a white button placket
    Image.fromarray(pixels).save(out, "JPEG", quality=85)
    palette = colours_for_thumbnail(out.getvalue())
    assert palette.colours[0].name == "burgundy"
    assert palette.colours[0].share > 0.8


def test_two_colours_are_both_found_with_their_shares() -> None:
    """A navy top over a camel skirt: both, the larger first."""
    picture = garment_picture("#1c2541", shape="suit")
    img = Image.open(io.BytesIO(picture)).convert("RGB")
    pixels = np.asarray(img).copy()
    skirt = np.abs(pixels.astype(int) - (0x1C, 0x25, 0x41)).sum(axis=2) < 40
    skirt[: int(0.46 * pixels.shape[0])] = False
    pixels[skirt] = (0xB9, 0x8A, 0x58)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=90)
    names = {colour.name: colour.share for colour in colours_for_thumbnail(out.getvalue()).colours}
    assert {"navy", "camel"} <= set(names)
    assert names["navy"] > names["camel"] > 0.2


def test_the_same_bytes_give_the_same_palette() -> None:
    picture = garment_picture("#00966e", shape="coat", backdrop="#d9d9d9", seed=7)
    assert colours_for_thumbnail(picture) == colours_for_thumbnail(picture)


def test_a_large_original_is_read_small() -> None:
    picture = garment_picture("#0047ab", size=(1600, 2400))
    palette = colours_for_thumbnail(picture)
    assert palette.colours[0].name == "cobalt"


@pytest.mark.parametrize("data", [b"", b"not an image", b"\xff\xd8\xff\xe0 truncated jpeg"])
def test_bytes_that_do_not_decode_are_one_line_errors(data: bytes) -> None:
    with pytest.raises(UnreadableImage) as caught:
        colours_for_thumbnail(data)
    assert "\n" not in str(caught.value)
