"""Measuring stored images: fetch each one's thumbnail, compute its palette, store it.

``compute_colours`` is what the backfill and any re-measure run; ``save_palettes`` is the
write alone, for a pass that already holds palettes (the ingest pass, which measures the
thumbnail it has just made with ``colours_for_thumbnail``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.colour.palette import Palette, UnreadableImage, colours_for_thumbnail
from rk.server.colour.repository import image_objects, replace_palettes
from rk.server.platform.db.database import Database, Row

log = logging.getLogger("rk.server.colour")

FETCHES = 8
"""Thumbnails fetched from storage at once by one ``compute_colours`` call."""


class ColourReport(Struct, frozen=True, kw_only=True):
    """What one ``compute_colours`` call did: images measured, and why others were not."""

    measured: list[int]
    failed: dict[int, str]


def palette_rows(image_id: int, palette: Palette, now: int) -> list[tuple[Any, ...]]:
    """The ``image_colours`` rows of one palette (``repository.COLUMNS`` order)."""
    return [
        (image_id, rank, c.name, c.hex, c.l, c.a, c.b, c.share, c.delta_e, now)
        for rank, c in enumerate(palette.colours, start=1)
    ]


async def save_palettes(db: Database, palettes: Mapping[int, Palette]) -> set[int]:
    """Store each image's palette in place of any it had; the ids stored (a deleted image's
    palette is dropped). One transaction."""
    now = int(time.time())
    rows = [row for image_id, p in palettes.items() for row in palette_rows(image_id, p, now)]
    return await replace_palettes(db, rows) if rows else set()


async def _measure(storage: Storage, row: Row, gate: asyncio.Semaphore) -> Palette | str:
    """The palette of one image's thumbnail (its original read small when it has none), or
    why there is none. A storage fault other than a missing object propagates."""
    key = str(row["thumb_key"] or row["key"])
    async with gate:
        try:
            data = await storage.get(key)
        except FileNotFoundError:
            return f"{key} is missing from storage"
    try:
        return await asyncio.to_thread(colours_for_thumbnail, data)
    except UnreadableImage as exc:
        return f"{key}: {exc}"


async def compute_colours(db: Database, storage: Storage, image_ids: Sequence[int]) -> ColourReport:
    """Measure and store the palettes of ``image_ids``; which were measured, which failed.

    Each image is read from its stored thumbnail (never the full-size original when a
    thumbnail exists). Images that do not exist, whose object is missing or does not decode
    are reported in ``failed`` and keep what they had.
    """
    rows = await image_objects(db, image_ids)
    gate = asyncio.Semaphore(FETCHES)
    results = await asyncio.gather(*(_measure(storage, row, gate) for row in rows))
    failed: dict[int, str] = {}
    palettes: dict[int, Palette] = {}
    for row, result in zip(rows, results, strict=True):
        image_id = int(row["id"])
        if isinstance(result, str):
            failed[image_id] = result
            log.warning("colours of image %d not measured: %s", image_id, result)
        else:
            palettes[image_id] = result
    stored = await save_palettes(db, palettes)
    for image_id in dict.fromkeys(image_ids):
        if image_id not in stored and image_id not in failed:
            failed[image_id] = "no such image"
    return ColourReport(measured=sorted(stored), failed=failed)
