"""Rendition ladders in storage: made from an original's bytes, stored under content keys.

Each rung of ``rk.core.runtime.ladder`` is stored at ``r/<width>/<sha1 of the original>.webp``,
created exclusively: the same original always gives the same keys, so storing a ladder
again (a retried job, a backfill run twice) writes nothing new. ``image_renditions`` then
records the rungs stored for the original: ``360,560,640`` (narrowest first), ``""`` when
none fits; an original without a row has no ladder yet. The record says what was made, not
what storage holds now: whoever reuses it checks the rungs are there (``ladder_stored``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable

from rk.core.api.keys import CONTENT_KEY, parse_content_key, rendition_key
from rk.core.api.storage import Storage
from rk.core.runtime.ladder import CONTENT_TYPE, ladder
from rk.server.media.repository_renditions import record_ladder


def format_widths(widths: Iterable[int]) -> str:
    """``360,560,640``: the recorded form of a ladder's widths."""
    return ",".join(str(width) for width in widths)


def parse_widths(text: str | None) -> tuple[int, ...]:
    """The widths a recorded ladder lists (none for None or "")."""
    return tuple(int(part) for part in (text or "").split(",") if part.isdigit())


def rendition_keys_of(key: str, widths: str | None) -> list[str]:
    """The keys of the rungs ``widths`` lists for original ``key`` (none for a key that is
    not content-addressed)."""
    match = CONTENT_KEY.match(key)
    if not match:
        return []
    return [rendition_key(width, match.group(2)) for width in parse_widths(widths)]


async def ladder_stored(storage: Storage, key: str, widths: str) -> bool:
    """Whether storage holds every rung ``widths`` lists for original ``key``."""
    heads = await asyncio.gather(*(storage.head(k) for k in rendition_keys_of(key, widths)))
    return all(head is not None for head in heads)


def _nothing(_key: str) -> None:
    """Nobody to tell about a key before it is written."""


async def store_ladder(
    storage: Storage, key: str, data: bytes, before_write: Callable[[str], None] = _nothing
) -> str | None:
    """Make the ladder of ``data`` (the bytes of original ``key``), create each rung storage
    does not hold yet and record it; the widths recorded, None when the original does not
    decode (recorded as no rung, so nobody tries again).

    ``before_write`` hears each key before it is written (an ingest job's rollback list).
    Storage errors propagate (``OSError``).
    """
    _, sha1 = parse_content_key(key)
    rungs = await ladder(data)
    for rung in rungs or []:
        rung_key = rendition_key(rung.width, sha1)
        before_write(rung_key)
        await storage.create(rung_key, rung.data, CONTENT_TYPE)
    widths = None if rungs is None else format_widths(rung.width for rung in rungs)
    await record_ladder(key, widths or "", int(time.time()))
    return widths
