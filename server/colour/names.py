"""rk's fashion colour names (``colour_names.csv``, shipped with rk) and naming by CIEDE2000.

Each name is one swatch in sRGB hex; its Lab value is derived from the hex (``lab.py``). A
measured colour takes the name of the swatch with the smallest ΔE00. The file's format and
the reasons behind its swatches are in ``docs/colour.md``.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

import numpy as np
from msgspec import Struct
from numpy.typing import NDArray

from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import Floats, lab_of_hex

NAMES_FILE = "colour_names.csv"


class NamedColour(Struct, frozen=True, kw_only=True):
    """One swatch of the palette: its name, ``#rrggbb`` and L*a*b* (D65)."""

    name: str
    hex: str
    lab: tuple[float, float, float]


@cache
def named_colours() -> tuple[NamedColour, ...]:
    """Every swatch of ``colour_names.csv``, in the file's order."""
    text = resources.files(__package__).joinpath(NAMES_FILE).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    found = []
    for row in csv.DictReader(lines):
        hex_value = row["hex"].strip().lower()
        lab = lab_of_hex(hex_value)
        found.append(
            NamedColour(
                name=row["name"].strip(),
                hex=hex_value,
                lab=(float(lab[0]), float(lab[1]), float(lab[2])),
            )
        )
    return tuple(found)


@cache
def swatch_labs() -> Floats:
    """The swatches' Lab values as one ``(n, 3)`` array, in ``named_colours`` order."""
    return np.array([colour.lab for colour in named_colours()], dtype=np.float64)


@cache
def by_name() -> dict[str, NamedColour]:
    """The swatches keyed by name."""
    return {colour.name: colour for colour in named_colours()}


def nearest(labs: Floats) -> tuple[NDArray[np.intp], Floats]:
    """For ``(n, 3)`` Lab colours: the index of each one's nearest swatch and its ΔE00."""
    distances = delta_e_2000(np.asarray(labs)[:, None, :], swatch_labs()[None, :, :])
    best = np.argmin(distances, axis=1)
    return best, distances[np.arange(len(best)), best]


def names_within(lab: Floats, reach: float) -> list[str]:
    """The names whose swatch lies within ΔE00 ``reach`` of ``lab``, nearest first (the
    nearest one always, however far)."""
    distances = delta_e_2000(swatch_labs(), np.asarray(lab)[None, :])
    order = np.argsort(distances, kind="stable")
    colours = named_colours()
    return [colours[int(i)].name for n, i in enumerate(order) if n == 0 or distances[i] <= reach]
