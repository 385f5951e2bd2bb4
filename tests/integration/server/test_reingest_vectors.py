"""A running exact index across a re-ingest, on SQLite and PostgreSQL.

A published article is indexed, then rejected, re-ingested (its images, and so their
vectors, are replaced: SQLite hands the new images the old ids) and published again
before the index looks: the index must answer with the new vectors, never the old ones.
"""

from __future__ import annotations

import numpy as np

from rk.core.api.plugins import RkPluginManager
from rk.core.config import VectorSettings
from rk.server.platform.db.tables import Article
from rk.server.similarity.vectors.exact import ExactIndex
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, images_of, show
from tests.integration.server.images import ImageServer, jpeg
from tests.integration.vectors.helpers import MODEL, brute, clustered, save


async def test_a_round_trip_through_reingest_leaves_no_old_vector(
    any_dsn: str, start_backend: StartBackend, images: ImageServer, plugin_manager: RkPluginManager
) -> None:
    backend = await start_backend(database=any_dsn)
    rng = np.random.default_rng(3)
    index = ExactIndex(VectorSettings())
    first = show("ss25/round", [images.add(f"/a{n}.jpg", jpeg(n)) for n in (1, 2, 3)])
    assert (await backend.ingest_and_wait(first))["outcome"] == "created"
    article = int((await article_of(first))["id"])
    await Article.update({Article.status: "published"}).where(Article.id == article)
    old = [int(row["id"]) for row in await images_of(article)]
    await save(plugin_manager, old, clustered(rng, 3))
    query = clustered(rng, 1)[0]
    assert {i for i, _ in await index.search(MODEL, query, 10)} == set(old)

    await Article.update({Article.status: "rejected"}).where(Article.id == article)
    again = show("ss25/round", [images.add(f"/b{n}.jpg", jpeg(n + 10)) for n in (1, 2, 3)])
    assert (await backend.ingest_and_wait(again))["outcome"] == "reused_rejected"
    await Article.update({Article.status: "published"}).where(Article.id == article)
    new = [int(row["id"]) for row in await images_of(article)]
    vectors = clustered(rng, 3)
    vectors[0] = query
    await save(plugin_manager, new, vectors)

    answer = await index.search(MODEL, query, 10)
    assert answer[0][0] == new[0]
    assert answer[0][1] > 0.9999
    assert [i for i, _ in answer] == [i for i, _ in await brute(query, 10)]
    assert {i for i, _ in answer} == set(new)
