"""Public similarity search: stored neighbours of an image, and search by a query vector.

Only published images are ever returned: the image asked about must belong to a
published, live article, and so must every image in an answer. A query vector (from the
text tower or an uploaded image) goes to the process's vector index (pgvector, or the exact
in-process matrix kept fresh from the database before each query); the images it names are
checked against the database once more when the answer is built, so one unpublished a
moment ago is left out and the next best takes its place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from msgspec import Struct
from piccolo.querystring import QueryString

from rk.core.storage import Storage
from rk.server.platform.db.tables import Image
from rk.server.platform.http.errors import NotFound
from rk.server.similarity.neighbours import normalised
from rk.server.similarity.search_index import PUBLISHED
from rk.server.similarity.vectors.model_index import ModelIndex

URL_TTL_S = 3600


class ImageHit(Struct, frozen=True, kw_only=True):
    """One image in a search answer, with a URL of its thumbnail (else the original)."""

    image_id: int
    article_id: int
    kind: str
    role: str
    position: int
    score: float
    url: str


async def _rows(sql: str, *args: Any) -> list[dict[str, Any]]:
    return list(await Image._meta.db.run_querystring(QueryString(sql, *args)))


async def _hits(storage: Storage, scored: list[tuple[int, float]]) -> list[ImageHit]:
    """ImageHits for ``(image_id, score)`` pairs of published images, in the given order."""
    if not scored:
        return []
    marks = ", ".join("{}" for _ in scored)
    rows = await _rows(
        "SELECT i.id, i.article_id, i.kind, i.role, i.position, i.key, i.thumb_key"
        f" FROM images i JOIN articles a ON a.id = i.article_id WHERE i.id IN ({marks})"
        f" AND {PUBLISHED}",
        *[image_id for image_id, _ in scored],
    )
    by_id = {int(row["id"]): row for row in rows}
    hits = []
    for image_id, score in scored:
        row = by_id.get(image_id)
        if row is None:
            continue
        hits.append(
            ImageHit(
                image_id=image_id,
                article_id=int(row["article_id"]),
                kind=str(row["kind"]),
                role=str(row["role"]),
                position=int(row["position"]),
                score=round(float(score), 6),
                url=await storage.url_for(row["thumb_key"] or row["key"], URL_TTL_S),
            )
        )
    return hits


async def similar(image_id: int, model: str, k: int, storage: Storage) -> list[ImageHit]:
    """The stored neighbours of a published image that are published themselves, best first.

    Raises:
        NotFound: no such image, or it is not published.
    """
    found = await _rows(
        f"SELECT i.id FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE i.id = {{}} AND {PUBLISHED}",
        image_id,
    )
    if not found:
        raise NotFound(f"no published image {image_id}")
    rows = await _rows(
        "SELECT n.neighbor_id, n.score FROM image_neighbors n"
        " JOIN images i ON i.id = n.neighbor_id JOIN articles a ON a.id = i.article_id"
        f" WHERE n.model = {{}} AND n.image_id = {{}} AND {PUBLISHED}"
        " ORDER BY n.rank LIMIT {}",
        model,
        image_id,
        k,
    )
    return await _hits(storage, [(int(r["neighbor_id"]), float(r["score"])) for r in rows])


async def by_vector(
    vector: list[float], k: int, storage: Storage, index: ModelIndex, kind: str | None = None
) -> list[ImageHit]:
    """The ``k`` published images most similar to ``vector`` (cosine), best first."""
    query = normalised(np.asarray([vector], dtype=np.float32))[0]
    want = k
    while True:
        scored = await index.search(query, want, kind)
        hits = await _hits(storage, scored)
        if len(hits) >= k or len(scored) < want:
            return hits[:k]
        want *= 2  # some left the published set since the index looked: take more
