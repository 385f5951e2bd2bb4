"""rk's fashion colour names and what a visitor may search by: a name or ``#hex``."""

from __future__ import annotations

import re

import pytest

from rk.server.colour import BadColour, named_colours, parse_colour
from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import lab_of_hex

ASKED_FOR = [
    "oxblood",
    "camel",
    "navy",
    "ecru",
    "ivory",
    "black",
    "charcoal",
    "grey",
    "white",
    "cream",
    "beige",
    "taupe",
    "chocolate",
    "tan",
    "rust",
    "burgundy",
    "red",
    "coral",
    "pink",
    "blush",
    "fuchsia",
    "lilac",
    "lavender",
    "purple",
    "plum",
    "cobalt",
    "teal",
    "turquoise",
    "emerald",
    "olive",
    "khaki",
    "sage",
    "mint",
    "mustard",
    "yellow",
    "orange",
    "gold",
    "silver",
    "denim",
]


def test_the_palette_has_the_fashion_names_each_once_with_its_lab() -> None:
    swatches = named_colours()
    names = [swatch.name for swatch in swatches]
    assert 30 <= len(names) <= 60
    assert len(set(names)) == len(names)
    assert set(ASKED_FOR) | {"sky blue"} <= set(names)
    for swatch in swatches:
        assert re.fullmatch(r"#[0-9a-f]{6}", swatch.hex), swatch
        assert float(delta_e_2000(lab_of_hex(swatch.hex), swatch.lab)) == pytest.approx(0)


def test_no_two_names_are_the_same_colour() -> None:
    swatches = named_colours()
    for n, first in enumerate(swatches):
        for second in swatches[n + 1 :]:
            assert float(delta_e_2000(first.lab, second.lab)) > 3, (first.name, second.name)


@pytest.mark.parametrize(
    ("text", "name", "hex_value"),
    [
        ("oxblood", "oxblood", "#5a1a1e"),
        ("  Sky-Blue ", "sky blue", "#8ccbea"),
        ("forest_green", "forest green", "#1f4a2e"),
        ("#C8102E", None, "#c8102e"),
        ("#c00", None, "#cc0000"),
    ],
)
def test_names_and_hex_values_are_read(text: str, name: str | None, hex_value: str) -> None:
    query = parse_colour(text)
    assert (query.name, query.hex) == (name, hex_value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "colour is empty: give a colour name (e.g. oxblood) or #rrggbb"),
        ("#12345", "malformed hex colour '#12345': use #rrggbb or #rgb"),
        ("#gg0000", "malformed hex colour '#gg0000': use #rrggbb or #rgb"),
        ("#c8102e;", "malformed hex colour '#c8102e;': use #rrggbb or #rgb"),
        (
            "oxbloud",
            "unknown colour 'oxbloud' (did you mean oxblood?): use one of rk's 45 colour"
            " names (docs/colour.md) or #rrggbb",
        ),
        (
            "chartreuse",
            "unknown colour 'chartreuse': use one of rk's 45 colour names (docs/colour.md)"
            " or #rrggbb",
        ),
        ("x" * 41, "colour is too long (41 characters; at most 40)"),
    ],
)
def test_bad_colours_are_one_line_400s(text: str, message: str) -> None:
    with pytest.raises(BadColour) as caught:
        parse_colour(text)
    assert str(caught.value) == message
    assert caught.value.status_code == 400
