"""The embedding backfill on the backend: hand out pending images, accept vectors and failures.

Pending = images of a kind (of a live article, with a stored object) that have no vector
for the active model, fewer recorded failures than the cap, and no unexpired lease.
Handing them out sets a short lease in the same statement — ``FOR UPDATE SKIP LOCKED``
on PostgreSQL, one ``BEGIN IMMEDIATE`` writer on SQLite — so two workers asking at once
get disjoint sets, and an image whose worker died is handed out again after the lease.

A submit is checked item by item: good vectors are stored (L2-normalised float32 LE,
with ``neighbours_at`` = 0 so the neighbours job places them), bad ones are listed with a
reason and count as a failure of their image, like the failures the worker reports.
An image whose failures reach the cap leaves the queue (``capped_failures`` lists them).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np
import pluggy

from rk.core.api.plugins import notify
from rk.core.api.storage import Storage
from rk.core.api.wire import (
    EmbeddingSubmit,
    EmbeddingSubmitted,
    EmbeddingVector,
    ItemError,
    PendingEmbeddings,
    PendingImage,
)
from rk.server.platform.db.sql_rows import engine
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.similarity.repository.embeddings import (
    capped_failure_rows,
    clear_failures,
    count_failure,
    count_pending_images,
    image_kinds,
    images_with_vectors,
    lease_pending_images,
    upsert_vector,
)
from rk.server.similarity.repository.neighbour_lists import forget_replaced
from rk.server.similarity.vectors.pg_clock import hold_vector_clock
from rk.server.similarity.vectors.pg_spaces import copy_saved, prepare_save

MAX_PENDING = 1000
"""The most images one pending request may lease."""


class ModelInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What the backend checks vectors against: the active model's id and width."""

    model_id: str
    dim: int


async def lease_pending(
    kind: str,
    limit: int,
    model: str,
    storage: Storage,
    *,
    failure_cap: int,
    lease_s: int,
    url_ttl_s: int,
) -> PendingEmbeddings:
    """Lease up to ``limit`` pending images of ``kind`` for ``lease_s`` seconds, with URLs.

    Each URL points at the thumbnail when the image has one (decoding a full-size JPEG
    costs as much as running CLIP on it), else at the original.
    """
    now = int(time.time())
    limit = max(0, min(limit, MAX_PENDING))
    args = (kind, now, model, model, failure_cap)
    leased: list[dict[str, Any]] = []
    if limit:
        async with write_transaction():
            leased = await lease_pending_images(args, limit, now + lease_s)
    count = await count_pending_images(args)
    items = [
        PendingImage(
            image_id=int(row["id"]),
            url=await storage.url_for(row["thumb_key"] or row["key"], url_ttl_s),
        )
        for row in sorted(leased, key=lambda row: int(row["id"]))
    ]
    return PendingEmbeddings(items=items, remaining=count)


def vector_problem(item: EmbeddingVector, kinds: dict[int, str], model: ModelInfo) -> str | None:
    """Why this vector cannot be stored, or None when it is good."""
    kind = kinds.get(item.image_id)
    if kind is None:
        return f"unknown image {item.image_id}"
    if kind != item.kind:
        return f"image {item.image_id} is {kind}, not {item.kind}"
    if len(item.vector) != model.dim:
        return f"vector has {len(item.vector)} numbers; model {model.model_id} has dim {model.dim}"
    vector = np.asarray(item.vector, dtype=np.float64)
    if not np.isfinite(vector).all():
        return "vector has NaN or infinite values"
    if not np.any(vector):
        return "vector is all zeros"
    return None


def vector_bytes(values: Sequence[float]) -> bytes:
    """The stored form of a vector: unit length, float32 little-endian."""
    vector = np.asarray(values, dtype=np.float64)
    return (vector / np.linalg.norm(vector)).astype("<f4").tobytes()


async def submit(
    data: EmbeddingSubmit,
    model: ModelInfo,
    pm: pluggy.PluginManager,
    *,
    failure_cap: int,
) -> EmbeddingSubmitted:
    """Store the good vectors, count failures per image, list every rejected item."""
    kinds = await image_kinds(
        [item.image_id for item in data.items] + [f.image_id for f in data.failures]
    )
    errors: list[ItemError] = []
    good: dict[int, EmbeddingVector] = {}
    failures: dict[int, str] = {}
    for item in data.items:
        problem = vector_problem(item, kinds, model)
        if problem is None and item.image_id in good:
            problem = f"image {item.image_id} has two vectors in this submit"
        if problem is None:
            good[item.image_id] = item
            continue
        errors.append(ItemError(image_id=item.image_id, error=problem))
        if item.image_id in kinds:
            failures[item.image_id] = f"rejected vector: {problem}"
    for failure in data.failures:
        if failure.image_id not in kinds:
            errors.append(
                ItemError(image_id=failure.image_id, error=f"unknown image {failure.image_id}")
            )
        elif failure.image_id in good:
            errors.append(
                ItemError(image_id=failure.image_id, error="image has a vector in this submit")
            )
        else:
            failures[failure.image_id] = failure.error or "failed"
    for image_id in good:  # a good vector beats a bad one sent beside it
        failures.pop(image_id, None)
    await _store(list(good.values()), failures, model.model_id)
    by_kind: dict[str, list[int]] = {}
    for item in good.values():
        by_kind.setdefault(item.kind, []).append(item.image_id)
    for kind, image_ids in sorted(by_kind.items()):
        notify(
            pm,
            "rk_embeddings_saved",
            kind=kind,
            image_ids=sorted(image_ids),
            model=model.model_id,
        )
    return EmbeddingSubmitted(
        saved=len(good), failed=len(data.items) + len(data.failures) - len(good), errors=errors
    )


async def _store(vectors: list[EmbeddingVector], failures: dict[int, str], model: str) -> None:
    """Upsert vectors (clearing their failures) and bump failure counts, in one transaction."""
    if not vectors and not failures:
        return
    now = int(time.time())
    await prepare_save(model, {(item.kind, len(item.vector)) for item in vectors})
    stored: list[tuple[int, str, int, bytes]] = []
    async with write_transaction():
        await hold_vector_clock(engine())
        await forget_replaced(
            model, await images_with_vectors(model, [item.image_id for item in vectors])
        )
        for item in vectors:
            vector = vector_bytes(item.vector)
            stored.append((item.image_id, item.kind, len(item.vector), vector))
            await upsert_vector(item.image_id, model, item.kind, len(item.vector), vector, now)
        await copy_saved(model, stored)
        await clear_failures(model, [item.image_id for item in vectors])
        for image_id, error in sorted(failures.items()):
            await count_failure(image_id, model, error[:2000], now)


class CappedFailure(msgspec.Struct, frozen=True, kw_only=True):
    """An image that left the embedding queue after too many failures."""

    image_id: int
    failures: int
    last_error: str
    updated_at: int


async def capped_failures(model: str, failure_cap: int, limit: int = 100) -> list[CappedFailure]:
    """Images at the failure cap for ``model`` and still without a vector, newest first."""
    rows = await capped_failure_rows(model, failure_cap, limit)
    return [msgspec.convert(row, CappedFailure) for row in rows]
