"""The rendition backfill: give every live image stored before ladders existed its ladder.

``rk storage renditions`` runs it. It walks the distinct originals of live images that have
no recorded ladder (``image_renditions``), in key order, ``BATCH`` at a time, and reports
progress after each batch. Each original is read once, decoded once for all its rungs (in
the thumbnail pool, one thread per core), its rungs created where storage lacks them, and
its ladder recorded. The database is the bookmark: a run that stops (Ctrl-C, a crash, a
``limit``) loses at most the originals in flight, and the next run starts with what is
left. An original missing from storage stays without a record (``rk storage gc`` counts it
missing); one that does not decode is recorded with no rung and not tried again.

A backfill may race the deletion of an article: rungs made for an original that no live
image uses any more are deleted again at once, through the same locked re-check as every
other delete (and ``rk storage gc`` sweeps any left behind).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.core.runtime.thumbs import pool_size
from rk.server.media.refs import delete_if_unreferenced
from rk.server.media.renditions import parse_widths, rendition_keys_of, store_ladder
from rk.server.media.repository_refs import image_uses_key
from rk.server.media.repository_renditions import count_originals_to_do, originals_to_do_after

BATCH = 25


class BackfillProgress(Struct, kw_only=True):
    """How far a backfill run is: originals to do when it started, and what became of each."""

    total: int
    made: int = 0
    too_small: int = 0
    undecodable: int = 0
    missing: int = 0
    rungs: int = 0
    left: int = 0
    """Originals still without a ladder when the run ended (missing ones among them)."""

    @property
    def done(self) -> int:
        """Originals this run has dealt with (missing ones included)."""
        return self.made + self.too_small + self.undecodable + self.missing

    def line(self) -> str:
        """``renditions: 50 of 578 originals (9 %): 48 given 230 rungs, 2 too small, …``."""
        share = 100 * self.done // self.total if self.total else 100
        return (
            f"renditions: {self.done} of {self.total} originals ({share} %): "
            f"{self.made} given {self.rungs} rungs, {self.too_small} too small, "
            f"{self.undecodable} undecodable, {self.missing} missing from storage"
        )


def _quiet(_progress: BackfillProgress) -> None:
    """Nobody to tell about progress."""


async def _backfill_one(storage: Storage, key: str, progress: BackfillProgress) -> None:
    """Store the ladder of original ``key`` and record it."""
    try:
        data = await storage.get(key)
    except FileNotFoundError:
        progress.missing += 1
        return
    widths = await store_ladder(storage, key, data)
    if widths is None:
        progress.undecodable += 1
    elif not widths:
        progress.too_small += 1
    else:
        progress.made += 1
        progress.rungs += len(parse_widths(widths))
    if widths and not await image_uses_key(key, live_only=True, skip_article=0):
        for rung in rendition_keys_of(key, widths):
            await delete_if_unreferenced(storage, rung, live_only=True)


async def backfill_renditions(
    storage: Storage,
    *,
    limit: int | None = None,
    batch: int = BATCH,
    on_progress: Callable[[BackfillProgress], None] = _quiet,
) -> BackfillProgress:
    """Give up to ``limit`` (None: every) original without a ladder its ladder; the progress,
    reported to ``on_progress`` after each batch. Storage errors propagate (``OSError``)."""
    todo = await count_originals_to_do()
    progress = BackfillProgress(total=todo if limit is None else min(todo, limit))
    gate = asyncio.Semaphore(pool_size())

    async def one(key: str) -> None:
        async with gate:
            await _backfill_one(storage, key, progress)

    last = ""
    while progress.done < progress.total:
        keys = await originals_to_do_after(last, min(batch, progress.total - progress.done))
        if not keys:
            break
        last = keys[-1]
        try:
            async with asyncio.TaskGroup() as group:
                for key in keys:
                    group.create_task(one(key))
        except BaseExceptionGroup as eg:
            raise eg.exceptions[0] from None
        on_progress(progress)
    progress.left = await count_originals_to_do()
    return progress
