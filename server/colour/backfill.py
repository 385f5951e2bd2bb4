"""The resumable colour backfill: every image without a palette, in id order, in batches.

A run measures what has no palette yet, so a run that stopped (interrupted, limited, or
failed on a storage outage) resumes where it left off when started again; images already
measured are never read again. An image that fails (its thumbnail missing or unreadable)
is reported and skipped for the rest of the run, and tried again by the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from msgspec import Struct, structs

from rk.core.api.storage import Storage
from rk.core.resumable import batches, check_run, planned
from rk.server.colour.measure import compute_colours
from rk.server.colour.repository import count_unmeasured, unmeasured_images
from rk.server.platform.db.database import Database

BATCH = 100
MAX_BATCH = 1000


class BackfillProgress(Struct, frozen=True, kw_only=True):
    """How far a backfill run is: images measured and failed so far, of ``total`` to do."""

    measured: int = 0
    failed: int = 0
    total: int = 0

    def line(self) -> str:
        """``colours: 200 of 1234 images measured, 3 failed``."""
        return f"colours: {self.measured} of {self.total} images measured, {self.failed} failed"


async def backfill_colours(
    db: Database,
    storage: Storage,
    *,
    batch: int = BATCH,
    limit: int = 0,
    progress: Callable[[BackfillProgress], None] | None = None,
) -> BackfillProgress:
    """Measure images without a palette, ``batch`` at a time, at most ``limit`` (0: all).

    ``progress`` is called after every batch. Raises ``ValueError`` for a batch outside
    1…``MAX_BATCH`` or a negative limit.
    """
    check_run(batch, limit, MAX_BATCH)
    state = BackfillProgress(total=planned(await count_unmeasured(db), limit))

    def handled() -> int:
        return state.measured + state.failed

    fetch = partial(unmeasured_images, db)
    async for rows in batches(fetch, "id", batch=batch, limit=limit, handled=handled):
        report = await compute_colours(db, storage, [int(row["id"]) for row in rows])
        done = state.measured + len(report.measured) + state.failed + len(report.failed)
        state = structs.replace(
            state,
            measured=state.measured + len(report.measured),
            failed=state.failed + len(report.failed),
            total=max(state.total, done),
        )
        if progress is not None:
            progress(state)
    return state
