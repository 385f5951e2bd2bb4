"""The embedding backfill's SQL: pending images and their leases, vectors and failures."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import engine_type, marks, rows
from rk.server.platform.db.tables import Image, ImageEmbedding, ImageEmbeddingFailure

PENDING = """
    i.kind = {} AND i.key <> '' AND i.embed_leased_until < {}
    AND NOT EXISTS (SELECT 1 FROM image_embeddings e
                    WHERE e.image_id = i.id AND e.model = {})
    AND NOT EXISTS (SELECT 1 FROM image_embedding_failures f
                    WHERE f.image_id = i.id AND f.model = {} AND f.failures >= {})
    AND EXISTS (SELECT 1 FROM articles a WHERE a.id = i.article_id AND a.deleted_at = 0)
"""
"""Images of a kind waiting for a vector of the model (kind, now, model, model, cap)."""
CHUNK = 500
"""Ids per ``IN (…)`` list."""


async def lease_pending_images(
    pending: tuple[Any, ...], limit: int, until: int
) -> list[dict[str, Any]]:
    """Inside a write transaction: lease up to ``limit`` pending images until ``until``;
    their id, key and thumbnail key (``FOR UPDATE SKIP LOCKED`` on PostgreSQL)."""
    skip_locked = "" if engine_type() == "sqlite" else "FOR UPDATE OF i SKIP LOCKED"
    return await rows(
        "UPDATE images SET embed_leased_until = {} WHERE id IN ("
        f"SELECT i.id FROM images i WHERE {PENDING} ORDER BY i.id LIMIT {{}} {skip_locked}"
        ") RETURNING id, key, thumb_key",
        until,
        *pending,
        limit,
    )


async def count_pending_images(pending: tuple[Any, ...]) -> int:
    """How many images are pending (kind, now, model, model, cap as ``PENDING`` takes)."""
    [count] = await rows(f"SELECT COUNT(*) AS n FROM images i WHERE {PENDING}", *pending)
    return int(count["n"])


async def image_kinds(image_ids: list[int]) -> dict[int, str]:
    """The kind of each of these images that exists."""
    ids = sorted(set(image_ids))
    found: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        found_rows = await Image.select(Image.id, Image.kind).where(
            Image.id.is_in(ids[start : start + CHUNK])
        )
        found.update({int(row["id"]): str(row["kind"]) for row in found_rows})
    return found


async def images_with_vectors(model: str, image_ids: list[int]) -> list[int]:
    """Which of these images already have a vector for ``model``."""
    found: list[int] = []
    for start in range(0, len(image_ids), CHUNK):
        chunk = image_ids[start : start + CHUNK]
        found_rows = await ImageEmbedding.select(ImageEmbedding.image_id).where(
            (ImageEmbedding.model == model) & ImageEmbedding.image_id.is_in(chunk)
        )
        found.extend(int(row["image_id"]) for row in found_rows)
    return found


async def upsert_vector(
    image_id: int, model: str, kind: str, dim: int, vector: bytes, now: int
) -> None:
    """Store an image's vector for ``model``, to be placed by the neighbours job."""
    await rows(
        "INSERT INTO image_embeddings"
        " (image_id, model, kind, dim, vector, created_at, neighbours_at)"
        " VALUES ({}, {}, {}, {}, {}, {}, 0)"
        " ON CONFLICT (image_id, model) DO UPDATE SET kind = excluded.kind,"
        " dim = excluded.dim, vector = excluded.vector,"
        " created_at = excluded.created_at, neighbours_at = 0",
        image_id,
        model,
        kind,
        dim,
        vector,
        now,
    )


async def clear_failures(model: str, image_ids: list[int]) -> None:
    """Forget the recorded failures of these images for ``model``."""
    for start in range(0, len(image_ids), CHUNK):
        chunk = image_ids[start : start + CHUNK]
        await rows(
            "DELETE FROM image_embedding_failures"
            f" WHERE model = {{}} AND image_id IN ({marks(len(chunk))})",
            model,
            *chunk,
        )


async def count_failure(image_id: int, model: str, error: str, now: int) -> None:
    """One more failure of an image for ``model``, with its error."""
    await rows(
        "INSERT INTO image_embedding_failures"
        " (image_id, model, failures, last_error, updated_at) VALUES ({}, {}, 1, {}, {})"
        " ON CONFLICT (image_id, model) DO UPDATE SET"
        " failures = image_embedding_failures.failures + 1,"
        " last_error = excluded.last_error, updated_at = excluded.updated_at",
        image_id,
        model,
        error,
        now,
    )


async def capped_failure_rows(model: str, failure_cap: int, limit: int) -> list[dict[str, Any]]:
    """Failure rows at the cap of images still without a vector, newest first."""
    return await rows(
        "SELECT f.image_id, f.failures, f.last_error, f.updated_at"
        " FROM image_embedding_failures f WHERE f.model = {} AND f.failures >= {}"
        " AND NOT EXISTS (SELECT 1 FROM image_embeddings e"
        " WHERE e.image_id = f.image_id AND e.model = f.model)"
        " ORDER BY f.updated_at DESC, f.image_id LIMIT {}",
        model,
        failure_cap,
        limit,
    )


async def article_images_to_embed(
    article_id: int, model: str, failure_cap: int
) -> list[dict[str, Any]]:
    """An article's stored images without a ``model`` vector and below the failure cap."""
    have = ImageEmbedding.select(ImageEmbedding.image_id).where(ImageEmbedding.model == model)
    capped = ImageEmbeddingFailure.select(ImageEmbeddingFailure.image_id).where(
        (ImageEmbeddingFailure.model == model) & (ImageEmbeddingFailure.failures >= failure_cap)
    )
    return await (
        Image.select(Image.id, Image.kind, Image.key, Image.thumb_key)
        .where(
            (Image.article_id == article_id)
            & (Image.key != "")
            & Image.id.not_in(have)
            & Image.id.not_in(capped)
        )
        .order_by(Image.id)
    )
