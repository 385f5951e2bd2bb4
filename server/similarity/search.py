"""Public similarity search: stored neighbours of an image, and search by a query vector.

Only published images are ever returned: the image asked about must belong to a
published, live article, and so must every image in an answer. A query vector (from the
text tower or an uploaded image) goes to the process's vector index (pgvector, or the exact
in-process matrix kept fresh from the database before each query); the images it names are
checked against the database once more when the answer is built, so one unpublished a
moment ago is left out and the next best takes its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import scored_rows
from rk.server.platform.http.errors import NotFound
from rk.server.similarity.neighbours import normalised
from rk.server.similarity.repository.search import (
    is_published_image,
    published_images,
    published_neighbours,
)
from rk.server.similarity.vectors.model_index import ModelIndex

URL_TTL_S = 3600
"""How long a hit's URL stays valid: a search page is read within the hour."""


class ImageHit(Struct, frozen=True, kw_only=True):
    """One image in a search answer, with a URL of its thumbnail (else the original)."""

    image_id: int
    article_id: int
    kind: str
    role: str
    position: int
    score: float
    url: str


async def hit_url(storage: Storage, row: Mapping[str, Any]) -> str:
    """A URL of an image row's thumbnail (its original without one), for ``URL_TTL_S``."""
    return await storage.url_for(str(row["thumb_key"] or row["key"]), URL_TTL_S)


async def _published(scored: list[tuple[int, float]]) -> list[tuple[dict[str, Any], float]]:
    """The image rows and scores of those ``(image_id, score)`` pairs that are published,
    in the given order."""
    if not scored:
        return []
    rows = await published_images([image_id for image_id, _ in scored])
    return scored_rows(scored, {int(row["id"]): row for row in rows})


async def _hits(storage: Storage, scored: list[tuple[int, float]]) -> list[ImageHit]:
    """ImageHits for ``(image_id, score)`` pairs of published images, in the given order."""
    return [await _hit(storage, row, score) for row, score in await _published(scored)]


async def _hit(storage: Storage, row: dict[str, Any], score: float) -> ImageHit:
    """One image row as an ImageHit, with a URL of its thumbnail (else the original)."""
    return ImageHit(
        image_id=int(row["id"]),
        article_id=int(row["article_id"]),
        kind=str(row["kind"]),
        role=str(row["role"]),
        position=int(row["position"]),
        score=round(float(score), 6),
        url=await hit_url(storage, row),
    )


async def similar(image_id: int, model: str, k: int, storage: Storage) -> list[ImageHit]:
    """The stored neighbours of a published image that are published themselves, best first.

    Raises:
        NotFound: no such image, or it is not published.
    """
    if not await is_published_image(image_id):
        raise NotFound(f"no published image {image_id}")
    return await _hits(storage, await published_neighbours(image_id, model, k))


async def published_matches(
    vector: list[float], k: int, index: ModelIndex, kind: str | None = None
) -> list[tuple[dict[str, Any], float]]:
    """The rows and cosines of the ``k`` published images most similar to ``vector``."""
    query = normalised(np.asarray([vector], dtype=np.float32))[0]
    want = k
    while True:
        scored = await index.search(query, want, kind)
        found = await _published(scored)
        if len(found) >= k or len(scored) < want:
            return found[:k]
        want *= 2  # some left the published set since the index looked: take more


async def by_vector(
    vector: list[float], k: int, storage: Storage, index: ModelIndex, kind: str | None = None
) -> list[ImageHit]:
    """The ``k`` published images most similar to ``vector`` (cosine), best first."""
    matches = await published_matches(vector, k, index, kind)
    return [await _hit(storage, row, score) for row, score in matches]
