"""The vector-index contract, run over every built-in: exact on SQLite and PostgreSQL,
pgvector on PostgreSQL 16 with pgvector (pgserver). Small data, so HNSW with
``ef_search`` 200 visits every vector and its answers must equal the exact ones."""

from __future__ import annotations

import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import Article, ImageEmbedding
from rk.server.similarity.embeddings import vector_bytes
from rk.server.similarity.neighbours import normalised
from rk.server.similarity.vector_codes import words
from tests.integration.embeddings import seed
from tests.integration.vectors.conftest import Setup
from tests.integration.vectors.helpers import DIM, MODEL, brute, clustered, save, show


def ids(scored: list[tuple[int, float]]) -> list[int]:
    return [i for i, _ in scored]


async def assert_exact(
    setup: Setup, query: np.ndarray, k: int, kind: str | None = None
) -> set[int]:
    got = await setup.index.search(MODEL, query, k, kind)
    want = await brute(query, k, kind=kind)
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    return set(ids(got))


async def test_search_answers_the_exact_top_k_of_published_images(
    setup: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(1)
    for n in range(6):
        await show(plugin_manager, rng, f"pub-{n}", 30)
    for n, status in enumerate(["pending", "rejected"]):
        await show(plugin_manager, rng, f"hidden-{n}", 30, status=status)
    await show(plugin_manager, rng, "street", 20, kind="street")
    for query in clustered(rng, 5):
        for k in (1, 10, 40):
            await assert_exact(setup, query, k)
        await assert_exact(setup, query, 10, "street")
        await assert_exact(setup, query, 10, "runway")
    assert await setup.index.search(MODEL, clustered(rng, 1)[0], 5, "nothing") == []
    assert await setup.index.search(MODEL, np.ones(DIM + 1, np.float32), 5) == []
    assert await setup.index.search("another-model", clustered(rng, 1)[0], 5) == []


async def test_unpublishing_hides_an_article_at_once_and_publishing_brings_it_back(
    setup: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(2)
    first, first_images = await show(plugin_manager, rng, "first", 12)
    _, second_images = await show(plugin_manager, rng, "second", 12)
    [query] = clustered(rng, 1)
    assert await assert_exact(setup, query, 100) == set(first_images + second_images)
    await Article.update({Article.status: "rejected"}).where(Article.id == first)
    assert await assert_exact(setup, query, 100) == set(second_images)
    await Article.update({Article.status: "published"}).where(Article.id == first)
    await Article.update({Article.deleted_at: 7}).where(Article.id != first)
    assert await assert_exact(setup, query, 100) == set(first_images)


async def test_a_saved_or_replaced_vector_counts_on_the_next_query(
    setup: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(3)
    article, _ = await show(plugin_manager, rng, "show", 20)
    [query] = clustered(rng, 1)
    await assert_exact(setup, query, 5)
    extra = [await seed.image(article, 100 + n) for n in range(3)]
    await save(plugin_manager, extra, np.repeat(query[None, :], 3, axis=0))
    assert set(ids(await setup.index.search(MODEL, query, 3))) == set(extra)
    # a re-submitted vector replaces the old one: the image moves away from the query
    await save(plugin_manager, extra[:1], normalised(-query[None, :]))
    found = await assert_exact(setup, query, 3)
    assert extra[0] not in found
    assert set(extra[1:]) <= found


async def test_placement_gives_each_new_vector_its_exact_top_k(
    setup: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(4)
    await show(plugin_manager, rng, "old", 150)
    await show(plugin_manager, rng, "hidden", 50, status="pending")  # placed among too
    _, new = await show(plugin_manager, rng, "new", 10)
    rows = await ImageEmbedding.select(ImageEmbedding.image_id, ImageEmbedding.vector).where(
        ImageEmbedding.image_id.is_in(new)
    )
    vectors = np.stack([np.frombuffer(r["vector"], "<f4") for r in rows]).astype(np.float32)
    order = [int(r["image_id"]) for r in rows]
    placed = await setup.index.place(MODEL, "runway", np.array(order), vectors, 8)
    for image_id, vector in zip(order, vectors, strict=True):
        want = [(i, s) for i, s in await brute(vector, 9, published=False) if i != image_id][:8]
        assert ids(placed.lists[image_id]) == ids(want)
        assert [s for _, s in placed.lists[image_id]] == pytest.approx(
            [s for _, s in want], abs=1e-5
        )
    # no stored lists yet: an existing image is offered every new image among its nearest
    assert placed.reverse
    for owner, offered in placed.reverse.items():
        assert owner not in new
        [owner_vector] = [
            np.frombuffer(r["vector"], "<f4")
            for r in await ImageEmbedding.select(ImageEmbedding.vector).where(
                ImageEmbedding.image_id == owner
            )
        ]
        by_id = dict(zip(order, vectors, strict=True))
        for image_id, score in offered:
            assert score == pytest.approx(float(by_id[image_id] @ owner_vector), abs=1e-5)


async def test_reindex_takes_in_vectors_written_around_the_service(setup: Setup) -> None:
    rng = np.random.default_rng(5)
    article = await seed.article("bulk")
    images = await seed.images(article, 60)
    vectors = clustered(rng, 60)
    await ImageEmbedding.insert(
        *[
            ImageEmbedding(
                image_id=i, model=MODEL, kind="runway", dim=DIM, vector=vector_bytes(v.tolist())
            )
            for i, v in zip(images, vectors, strict=True)
        ]
    )
    reports: list[tuple[int, int]] = []
    assert await setup.index.reindex(MODEL, lambda done, total: reports.append((done, total))) == 60
    assert reports[-1] == (60, 60)
    for query in clustered(rng, 3):
        await assert_exact(setup, query, 10)


async def test_memory_held_by_the_process(setup: Setup, plugin_manager: RkPluginManager) -> None:
    rng = np.random.default_rng(6)
    await show(plugin_manager, rng, "show", 100)
    await assert_exact(setup, clustered(rng, 1)[0], 10)
    held = setup.index.nbytes()
    if setup.name == "pgvector":
        assert held == 0  # the vectors live in PostgreSQL
    else:  # per row: sign bits, int8 vector, its scale, image and article ids
        assert held == 100 * (8 * words(DIM) + DIM + 4 + 16)
        assert held < 100 * (DIM * 4 + 16) / 2  # under half the float32 rows
