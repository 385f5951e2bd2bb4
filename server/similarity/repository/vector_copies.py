"""The SQL of the in-process vector copies (``SearchIndex``, ``StoredVectors``): what changed
in ``image_embeddings``, ``vector_deletions`` and the published set since a stamp."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from rk.server.platform.db.sql_rows import LIVE, marks, rows

PUBLISHED = LIVE
"""Published and not deleted: the articles whose images search may answer."""
HASH_PRIMES = (2147483647, 2147483629, 2147483587)
HASH_FACTORS = (2654435761, 2246822519)
"""``hash(id) = (id·A mod P1)·(id·B mod P2) mod P3``: not linear, so sets with equal count
and id sum hash apart; every product stays below 2**63 for ids below 2**31."""
_P1, _P2, _P3 = HASH_PRIMES
_A, _B = HASH_FACTORS
STAMPS = (
    "(SELECT COALESCE(MAX(version), 0) FROM public_changes WHERE name = 'content') AS content,"
    " (SELECT COALESCE(MAX(change_seq), 0) FROM image_embeddings) AS top,"
    " (SELECT COALESCE(MAX(change_seq), 0) FROM vector_deletions) AS gone"
)
"""The public content counter (moved by triggers whenever an article becomes, stays or
stops being published: migration 0021) and the highest vector and deletion stamps."""
CHANGES_SQL = f"SELECT {STAMPS}"
"""The whole check when nothing changed: three index probes, whatever the archive's size."""
FINGERPRINT_SQL = (
    "SELECT COUNT(*) AS n, COALESCE(SUM(a.id), 0) AS s,"
    f" COALESCE(SUM(((a.id % {_P1}) * {_A} % {_P1}) * ((a.id % {_P2}) * {_B} % {_P2}) % {_P3}),"
    f" 0) AS h, {STAMPS} FROM articles a WHERE {PUBLISHED}"
)
"""The check once the content counter moved: the published set's fingerprint (an aggregate
over published articles, ~5 ms at 25,000 articles) with the counter and the stamps, read in
one statement so the fingerprint belongs to the counter it comes with."""
PUBLISHED_ROWS_SQL = (
    "SELECT e.id, e.change_seq, e.image_id, e.kind, e.model,"
    " COALESCE(i.article_id, 0) AS article_id,"
    f" CASE WHEN e.model = {{}} AND {PUBLISHED} THEN e.vector END AS vector"
    " FROM image_embeddings e LEFT JOIN images i ON i.id = e.image_id"
    " LEFT JOIN articles a ON a.id = i.article_id"
)
"""Rows of every model with their article, the vector only for ``model``'s published ones."""


async def change_stamps() -> dict[str, Any]:
    """``CHANGES_SQL``'s one row: ``content``, ``top``, ``gone``."""
    [row] = await rows(CHANGES_SQL)
    return row


async def published_fingerprint() -> dict[str, Any]:
    """``FINGERPRINT_SQL``'s one row: ``n``, ``s``, ``h``, ``content``, ``top``, ``gone``."""
    [row] = await rows(FINGERPRINT_SQL)
    return row


async def published_article_ids() -> set[int]:
    """The ids of every published, live article."""
    return {int(row["id"]) for row in await rows(f"SELECT a.id FROM articles a WHERE {PUBLISHED}")}


async def published_rows_of_articles(
    model: str, upto: int, articles: list[int]
) -> list[dict[str, Any]]:
    """``model``'s rows stamped up to ``upto`` of images of these articles."""
    return await rows(
        f"{PUBLISHED_ROWS_SQL} WHERE e.model = {{}} AND e.change_seq <= {{}}"
        f" AND i.article_id IN ({marks(len(articles))})",
        model,
        model,
        upto,
        *articles,
    )


async def published_rows_after(model: str, seen: int, limit: int) -> list[dict[str, Any]]:
    """A page of rows stamped after ``seen``, in stamp order (``PUBLISHED_ROWS_SQL``)."""
    return await rows(
        f"{PUBLISHED_ROWS_SQL} WHERE e.change_seq > {{}} ORDER BY e.change_seq LIMIT {{}}",
        model,
        seen,
        limit,
    )


async def vectors_of_images(model: str, images: npt.NDArray[np.int64]) -> list[dict[str, Any]]:
    """``model``'s stored vectors of these images (``image_id``, ``vector``): the float32
    rows the search index ranks its candidates by."""
    return await rows(
        "SELECT image_id, vector FROM image_embeddings"
        f" WHERE model = {{}} AND image_id IN ({marks(len(images))})",
        model,
        *(int(image) for image in images),
    )


async def highest_stamps() -> int:
    """The highest vector or deletion stamp: the whole check when nothing changed."""
    [row] = await rows(
        "SELECT (SELECT COALESCE(MAX(change_seq), 0) FROM image_embeddings) AS top,"
        " (SELECT COALESCE(MAX(change_seq), 0) FROM vector_deletions) AS gone"
    )
    return max(int(row["top"]), int(row["gone"]))


async def stored_rows_after(model: str, seen: int, limit: int) -> list[dict[str, Any]]:
    """A page of rows stamped after ``seen``, every model's (a row moved to another model
    leaves this one), with the vector only where it is ``model``'s."""
    return await rows(
        "SELECT id, change_seq, image_id, kind, model,"
        " CASE WHEN model = {} THEN vector END AS vector FROM image_embeddings"
        " WHERE change_seq > {} ORDER BY change_seq LIMIT {}",
        model,
        seen,
        limit,
    )


async def deleted_images(model: str, after: int, upto: int) -> list[int]:
    """The images whose ``model`` vectors were deleted in stamps ``after`` < s ≤ ``upto``."""
    found = await rows(
        "SELECT image_id FROM vector_deletions"
        " WHERE model = {} AND change_seq > {} AND change_seq <= {}",
        model,
        after,
        upto,
    )
    return [int(row["image_id"]) for row in found]


async def stored_models() -> list[str]:
    """Every model with a stored vector, by name."""
    found = await rows("SELECT DISTINCT model FROM image_embeddings ORDER BY model")
    return [str(row["model"]) for row in found]
