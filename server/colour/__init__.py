"""rk.server.colour: each image's garment palette measured from its pixels, the fashion
colour names it is named by, search by colour and the colour facet.

The maths is pure (``palette.py`` with ``lab.py``, ``ciede2000.py``, ``regions.py``,
``clusters.py``, ``names.py``); ``docs/colour.md`` documents the method and its limits.

For other slices:

- ``colours_for_thumbnail(thumb)`` → ``Palette``: the hook for the pass that makes
  thumbnails (pure, CPU-bound: run it off the loop); ``save_palettes(db, {image_id:
  palette})`` stores what it measured once the image rows exist.
- ``compute_colours(db, storage, image_ids)`` measures stored images from their thumbnails;
  ``backfill_colours`` runs it over every image without a palette (``rk colours backfill``).
- ``images_by_colour(db, colour, limit, …)`` → ``ColourHit``s, and ``colour_facet(db)`` →
  ``ColourCount``s, for the site's ``/search?colour=`` and its facet (a colour counts from
  ``FACET_MIN_SHARE`` of the garment, as in trends); ``BadColour`` is their one-line 400
  for an unknown name or a malformed hex.
"""

from __future__ import annotations

from rk.server.colour.backfill import BackfillProgress, backfill_colours
from rk.server.colour.measure import ColourReport, compute_colours, save_palettes
from rk.server.colour.names import NamedColour, named_colours
from rk.server.colour.palette import Palette, PaletteColour, UnreadableImage, colours_for_thumbnail
from rk.server.colour.query import BadColour, ColourQuery, parse_colour
from rk.server.colour.search import (
    FACET_MIN_SHARE,
    ColourCount,
    ColourHit,
    colour_facet,
    images_by_colour,
)

__all__ = [
    "FACET_MIN_SHARE",
    "BackfillProgress",
    "BadColour",
    "ColourCount",
    "ColourHit",
    "ColourQuery",
    "ColourReport",
    "NamedColour",
    "Palette",
    "PaletteColour",
    "UnreadableImage",
    "backfill_colours",
    "colour_facet",
    "colours_for_thumbnail",
    "compute_colours",
    "images_by_colour",
    "named_colours",
    "parse_colour",
    "save_palettes",
]
