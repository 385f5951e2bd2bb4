"""Tagging stored vectors: the resumable run over every image whose tags are out of date.

An image is out of date when its vector under the model has no tag run, or one by another
model or vocabulary digest. A run reads those vectors in id order, a batch at a time,
scores them against the tag vectors (no image is read again) and, in one transaction per
batch, replaces the batch's ``auto`` tags and records the run. So a run that stopped
resumes where it left off, and a new vocabulary or model tags everything again; the
moderators' ``confirmed`` and ``removed`` rows are never overwritten.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import numpy as np
from msgspec import Struct, structs

from rk.core.resumable import batches, check_run, planned
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.tags.repository import (
    count_to_tag,
    delete_auto,
    existing_images,
    insert_auto,
    mark_tagged,
    vectors_to_tag,
)
from rk.server.tags.scoring import TagVectors, applied_tags, unit_rows

BATCH = 500
MAX_BATCH = 5000


class TagProgress(Struct, frozen=True, kw_only=True):
    """How far a tagging run is: images tagged and tags given so far, of ``total``."""

    images: int = 0
    tags: int = 0
    total: int = 0

    def line(self) -> str:
        """``tags: 500 of 1234 images tagged (812 tags)``."""
        return f"tags: {self.images} of {self.total} images tagged ({self.tags} tags)"


async def tag_batch(tags: TagVectors, found: list[dict[str, Any]]) -> int:
    """Tag the ``image_id, vector`` rows ``found``; how many tags were given."""
    ids = [int(row["image_id"]) for row in found]
    vectors = np.stack([np.frombuffer(bytes(row["vector"]), dtype="<f4") for row in found])
    applied = await asyncio.to_thread(applied_tags, unit_rows(vectors), tags)
    now = int(time.time())
    model, digest = tags.model, tags.vocabulary.digest
    async with write_transaction():
        alive = await existing_images(ids)
        kept = [image_id for image_id in ids if image_id in alive]
        await delete_auto(kept)
        values = [
            (image_id, scored.tag, scored.score, model, digest, now)
            for image_id, chosen in zip(ids, applied, strict=True)
            if image_id in alive
            for scored in chosen
        ]
        await insert_auto(values)
        await mark_tagged(kept, model, digest, now)
    return len(values)


async def tag_pending(
    tags: TagVectors,
    *,
    batch: int = BATCH,
    limit: int = 0,
    progress: Callable[[TagProgress], None] | None = None,
    heartbeat: Callable[[], Awaitable[bool]] | None = None,
) -> TagProgress:
    """Tag every out-of-date image, ``batch`` at a time, at most ``limit`` (0: all).

    ``progress`` is called after every batch, then ``heartbeat`` is awaited: the run stops
    when it answers False (a job that lost its lease). Raises ``ValueError`` for a batch outside
    1…``MAX_BATCH`` or a negative limit.
    """
    check_run(batch, limit, MAX_BATCH)
    model, digest = tags.model, tags.vocabulary.digest
    state = TagProgress(total=planned(await count_to_tag(model, digest), limit))

    def handled() -> int:
        return state.images

    fetch = partial(vectors_to_tag, model, digest)
    async for found in batches(fetch, "image_id", batch=batch, limit=limit, handled=handled):
        given = await tag_batch(tags, found)
        done = state.images + len(found)
        state = structs.replace(
            state, images=done, tags=state.tags + given, total=max(state.total, done)
        )
        if progress is not None:
            progress(state)
        if heartbeat is not None and not await heartbeat():
            break
    return state
