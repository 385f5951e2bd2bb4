"""The two questions asked of a pgvector space, as SQL: top-K published, and nearest stored.

HNSW returns at most ``hnsw.ef_search`` rows per scan, so each query sets it (for its own
transaction only) to at least the number of candidates it wants. Search filters on the
published set in the same statement, so an unpublished article drops out of the next
query in every process, transactionally; candidates that fail the filter are asked for
again with a larger ``ef_search`` by the caller.
"""

from __future__ import annotations

import asyncio

import numpy as np

from rk.core.api.vector_indexes import Scored
from rk.server.platform.db.sql_rows import LIVE, rows
from rk.server.similarity.vectors.pg_database import pg_database
from rk.server.similarity.vectors.pg_spaces import Space

MAX_EF_SEARCH = 1000
"""pgvector's upper bound for ``hnsw.ef_search``."""
PLACE_CONNECTIONS = 4
"""Placement statements in flight at once, each on a pooled connection (at most the pool's
size less two, so the rest of the process keeps connections)."""


def top_published_sql(space: Space) -> str:
    """``top_published``'s statement: ``$1`` the query as ``real[]``, ``$2`` the candidates."""
    return (
        "SELECT c.image_id, c.d, a.id IS NOT NULL AS shown FROM (SELECT image_id,"
        " embedding <=> $1::real[]::vector AS d"
        f" FROM {space.table} ORDER BY embedding <=> $1::real[]::vector LIMIT $2) c"
        " LEFT JOIN images i ON i.id = c.image_id"
        f" LEFT JOIN articles a ON a.id = i.article_id AND {LIVE}"
        " ORDER BY c.d, c.image_id"
    )


async def top_published(space: Space, query: np.ndarray, k: int, ef: int) -> tuple[Scored, int]:
    """The ``k`` best published images among the space's ``ef`` nearest to the ``query``,
    and how many candidates the index gave (fewer than ``ef``: all it has).

    Each candidate comes back with whether its article is published and live, read in the
    same statement as the candidates themselves. The query travels in binary as ``real[]``.
    """
    db = pg_database()
    async with db.transaction() as tx:
        await tx.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
        found = await tx.rows(
            top_published_sql(space), np.asarray(query, dtype=np.float32).tolist(), ef
        )
    shown = [(int(row["image_id"]), 1.0 - float(row["d"])) for row in found if row["shown"]]
    return shown[:k], len(found)


async def nearest_stored(
    space: Space, owners: list[int], vectors: np.ndarray, candidates: int, ef_search: int
) -> dict[int, Scored]:
    """For each owner image (with its query vector), the ``candidates`` nearest stored
    images of the space, any status, itself excluded.

    One HNSW statement per vector, ``PLACE_CONNECTIONS`` in flight on pooled connections of
    their own: a batch in one statement ran its scans one after another in one backend
    (1.8 s for 100 among 100k). Each connection sets ``hnsw.ef_search`` once, in its own
    transaction; the vector travels in binary as ``real[]``.
    """
    db = pg_database()
    ef = min(MAX_EF_SEARCH, max(candidates + 1, ef_search))
    sql = (
        f"SELECT image_id, embedding <=> $1::real[]::vector AS d FROM {space.table}"
        " ORDER BY embedding <=> $1::real[]::vector LIMIT $2"
    )
    todo = list(zip(owners, vectors.astype(np.float32).tolist(), strict=True))
    out: dict[int, Scored] = {}

    async def worker() -> None:
        async with db.transaction() as tx:
            await tx.execute(f"SET LOCAL hnsw.ef_search = {ef}")
            while todo:
                owner, query = todo.pop()
                found = await tx.rows(sql, query, candidates + 1)
                scored = sorted(
                    (float(row["d"]), int(row["image_id"]))
                    for row in found
                    if row["image_id"] != owner
                )
                out[owner] = [(image_id, 1.0 - d) for d, image_id in scored[:candidates]]

    workers = max(1, min(PLACE_CONNECTIONS, db.pool_size - 2, len(todo)))
    await asyncio.gather(*(worker() for _ in range(workers)))
    return {owner: out[owner] for owner in owners}


async def kth_scores(model: str, k: int, owners: list[int]) -> dict[int, float]:
    """The rank-``k`` score of each owner's stored list (owners with shorter lists absent):
    what a newcomer must reach to enter it."""
    if not owners:
        return {}
    found = await rows(
        "SELECT image_id, score FROM image_neighbors"
        " WHERE model = {} AND rank = {} AND image_id = ANY({}::bigint[])",
        model,
        k,
        owners,
    )
    return {int(row["image_id"]): float(row["score"]) for row in found}
