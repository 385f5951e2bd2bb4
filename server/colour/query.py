"""What a visitor may ask for by colour: a fashion colour name or a ``#hex`` swatch.

``parse_colour`` turns ``oxblood``, ``Sky-Blue``, ``#5a1a1e`` or ``#c00`` into one Lab
colour, or raises ``BadColour`` (HTTP 400, one line) for anything else: an empty value, an
unknown name (with the nearest spelling when there is one), a malformed hex.
"""

from __future__ import annotations

import difflib
import re

from msgspec import Struct

from rk.server.colour.lab import hex_of, lab_of_hex
from rk.server.colour.names import by_name, named_colours
from rk.server.platform.http.errors import BadRequest

HEX = re.compile(r"#(?:[0-9a-f]{3}|[0-9a-f]{6})")
MAX_LENGTH = 40


class BadColour(BadRequest):
    """The colour asked for is not a known name nor a well-formed ``#rrggbb``/``#rgb``."""


class ColourQuery(Struct, frozen=True, kw_only=True):
    """A colour to search by: its swatch ``name`` (None for a hex), ``hex`` and Lab."""

    name: str | None
    hex: str
    lab: tuple[float, float, float]


def _name_key(text: str) -> str:
    """``Sky-Blue`` / ``sky_blue`` / `` sky  blue `` → ``sky blue``."""
    return " ".join(re.sub(r"[-_]", " ", text.lower()).split())


def _from_hex(text: str) -> ColourQuery:
    digits = text[1:]
    full = "#" + ("".join(c * 2 for c in digits) if len(digits) == 3 else digits)
    lab = lab_of_hex(full)
    return ColourQuery(
        name=None, hex=hex_of(lab), lab=(float(lab[0]), float(lab[1]), float(lab[2]))
    )


def parse_colour(text: str) -> ColourQuery:
    """The colour ``text`` names (a fashion colour name or ``#hex``); ``BadColour`` if none."""
    value = text.strip().lower()
    if not value:
        raise BadColour("colour is empty: give a colour name (e.g. oxblood) or #rrggbb")
    if len(value) > MAX_LENGTH:
        raise BadColour(f"colour is too long ({len(value)} characters; at most {MAX_LENGTH})")
    if value.startswith("#"):
        if HEX.fullmatch(value) is None:
            raise BadColour(f"malformed hex colour {text.strip()!r}: use #rrggbb or #rgb")
        return _from_hex(value)
    swatch = by_name().get(_name_key(value))
    if swatch is None:
        names = [colour.name for colour in named_colours()]
        close = difflib.get_close_matches(_name_key(value), names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise BadColour(
            f"unknown colour {text.strip()!r}{hint}: use one of rk's {len(names)} colour"
            " names (docs/colour.md) or #rrggbb"
        )
    return ColourQuery(name=swatch.name, hex=swatch.hex, lab=swatch.lab)
