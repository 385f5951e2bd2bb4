"""The search index against the re-read-everything scan, and its freshness across connections
and processes, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import numpy as np
import pytest
from piccolo.querystring import QueryString

from rk.core.api.plugins import RkPluginManager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.engine import sqlite_path
from rk.server.platform.db.tables import Article, Image, ImageEmbedding
from rk.server.similarity.embeddings import ModelInfo, submit, vector_bytes
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.neighbours import SKIP, Placement, normalised
from rk.server.similarity.repository.vector_copies import FINGERPRINT_SQL
from rk.server.similarity.search_index import Fingerprint, SearchIndex
from tests.integration.embeddings.backend import TINY_CLIP, add_article, add_images, embed_backend

MODEL = "m"
DIM = 16
Run = Callable[..., Awaitable[None]]

WRITER = """
import asyncio, sys
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Article

async def main(dsn: str, article_id: int, column: str, value: str) -> None:
    engine = await connect(dsn)
    try:
        new = value if column == "status" else int(value)
        await Article.update({getattr(Article, column): new}).where(Article.id == article_id)
    finally:
        await close(engine)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
"""


async def scan(query: np.ndarray, k: int, kind: str | None = None) -> list[tuple[int, float]]:
    """The path before the index: read every published vector, rank with ``Placement``."""
    rows = await Image._meta.db.run_querystring(
        QueryString(
            "SELECT e.image_id, e.vector FROM image_embeddings e"
            " JOIN images i ON i.id = e.image_id JOIN articles a ON a.id = i.article_id"
            " WHERE e.model = {} AND a.status = 'published' AND a.deleted_at = 0"
            + (" AND e.kind = {}" if kind else "")
            + " ORDER BY e.image_id",
            MODEL,
            *([kind] if kind else []),
        )
    )
    ids, matrix, _ = decode(list(rows), len(query))
    placement = Placement([0], query[None, :], k)
    placement.add_block(ids, matrix, np.full(len(ids), SKIP))
    return placement.lists()[0]


async def assert_same(index: SearchIndex, query: np.ndarray, k: int, kind: str | None = None):
    """The index answers what the scan answers; the answer's ids."""
    got = await index.search(query, k, kind)
    want = await scan(query, k, kind)
    assert [i for i, _ in got] == [i for i, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
    return {i for i, _ in got}


async def seed(
    rng: np.random.Generator, show: str, status: str, count: int, *, kind: str = "runway"
) -> tuple[int, list[int]]:
    """An article with ``count`` images, each with a random vector of ``MODEL``."""
    [row] = await Article.insert(
        Article(source="vogue", show_key=show, kind=kind, title=show, status=status)
    ).returning(Article.id)
    article = int(row["id"])
    images = await Image.insert(
        *[
            Image(article_id=article, role="look", position=n, kind=kind, key=f"{show}/{n}")
            for n in range(1, count + 1)
        ]
    ).returning(Image.id)
    ids = [int(image["id"]) for image in images]
    await embed(rng, ids, kind)
    return article, ids


async def embed(
    rng: np.random.Generator, image_ids: list[int], kind: str, model: str = MODEL
) -> None:
    await ImageEmbedding.insert(
        *[
            ImageEmbedding(
                image_id=image_id,
                model=model,
                kind=kind,
                dim=DIM,
                vector=vector_bytes(rng.standard_normal(DIM).tolist()),
            )
            for image_id in image_ids
        ]
    )


def queries(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    return list(normalised(rng.standard_normal((count, DIM))))


@asynccontextmanager
async def other_connection(dsn: str) -> AsyncIterator[Run]:
    """Statements (``?`` placeholders) on a connection of its own, outside piccolo."""
    if dsn.startswith("sqlite"):
        conn = sqlite3.connect(
            sqlite_path(dsn), isolation_level=None, timeout=30, check_same_thread=False
        )

        async def run_sqlite(sql: str, *args: object) -> None:  # waits for locks in a thread
            await asyncio.to_thread(conn.execute, sql.replace("BEGIN", "BEGIN IMMEDIATE"), args)

        try:
            yield run_sqlite
        finally:
            conn.close()
        return
    pg = await asyncpg.connect(dsn)

    async def run_pg(sql: str, *args: object) -> None:
        for n in range(1, sql.count("?") + 1):
            sql = sql.replace("?", f"${n}", 1)
        await pg.execute(sql, *args)

    try:
        yield run_pg
    finally:
        await pg.close()


async def in_another_process(dsn: str, article_id: int, column: str, value: object) -> None:
    """Change one article column from a separate Python process, through rk's own engine."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WRITER, dsn, str(article_id), column, str(value)
    )
    assert await proc.wait() == 0


async def test_the_index_answers_what_the_scan_answers(db: str) -> None:
    rng = np.random.default_rng(1)
    for n, status in enumerate(["published", "pending", "rejected"] * 8):
        await seed(rng, f"show-{n}", status, int(rng.integers(1, 15)))
    for n in range(6):
        await seed(rng, f"street-{n}", "published", 3, kind="street")
    gone, _ = await seed(rng, "deleted", "published", 10)
    await Article.update({Article.deleted_at: 5}).where(Article.id == gone)
    _, other = await seed(rng, "another-model", "published", 5)
    await embed(rng, other, "runway", model="another")
    # an image without a vector, and a vector whose image row is gone
    await Image.insert(Image(article_id=gone, role="look", position=99, kind="runway", key="x"))
    await Image.delete().where(Image.id == other[0])
    index = SearchIndex(MODEL)
    for query in queries(rng, 4):
        for kind in (None, "runway", "street"):
            for k in (1, 10, 1000):
                await assert_same(index, query, k, kind)
    assert await index.search(queries(rng, 1)[0], 5, "nothing") == []
    assert await index.search(np.ones(DIM + 1, np.float32), 5) == []


async def test_changes_by_other_connections_show_on_the_next_query(
    db: str, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(2)
    live, live_images = await seed(rng, "live", "published", 6)
    waiting, waiting_images = await seed(rng, "waiting", "pending", 4)
    index = SearchIndex(MODEL)
    [query] = queries(rng, 1)
    assert await assert_same(index, query, 50) == set(live_images)

    # new images of a published article, saved through the service
    fresh = [
        int(row["id"])
        for row in await Image.insert(
            *[
                Image(article_id=live, role="look", position=10 + n, kind="runway", key=f"f{n}")
                for n in range(3)
            ]
        ).returning(Image.id)
    ]
    items = [EmbeddingVector(kind="runway", image_id=i, vector=[1.0] * DIM) for i in fresh]
    model = ModelInfo(model_id=MODEL, dim=DIM)
    await submit(EmbeddingSubmit(items=items), model, plugin_manager, failure_cap=3)
    assert await assert_same(index, query, 50) == set(live_images + fresh)

    async with other_connection(db) as other:
        await other("UPDATE articles SET status = ? WHERE id = ?", "published", waiting)
        assert await assert_same(index, query, 50) == set(live_images + fresh + waiting_images)
        await other("UPDATE articles SET status = ? WHERE id = ?", "rejected", live)
        assert await assert_same(index, query, 50) == set(waiting_images)
        await other("UPDATE articles SET status = ? WHERE id = ?", "published", live)
        assert await assert_same(index, query, 50) == set(live_images + fresh + waiting_images)
        await other("UPDATE articles SET deleted_at = ? WHERE id = ?", 99, waiting)
        assert await assert_same(index, query, 50) == set(live_images + fresh)
        # a swap keeping the count: one article out, another in
        swap, swap_images = await seed(rng, "swap", "pending", 2)
        await other("UPDATE articles SET status = ? WHERE id = ?", "pending", live)
        await other("UPDATE articles SET status = ? WHERE id = ?", "published", swap)
        assert await assert_same(index, query, 50) == set(swap_images)


async def test_an_article_unpublished_or_deleted_by_another_process_drops_out(db: str) -> None:
    rng = np.random.default_rng(3)
    first, first_images = await seed(rng, "first", "published", 5)
    second, second_images = await seed(rng, "second", "published", 5)
    index = SearchIndex(MODEL)
    [query] = queries(rng, 1)
    assert await assert_same(index, query, 20) == set(first_images + second_images)
    await in_another_process(db, first, "status", "rejected")
    assert await assert_same(index, query, 20) == set(second_images)
    await in_another_process(db, second, "deleted_at", 1234)
    assert await index.search(query, 20) == []
    await in_another_process(db, first, "status", "published")
    assert await assert_same(index, query, 20) == set(first_images)


async def test_the_published_set_is_aggregated_only_when_the_content_counter_moved(
    db: str,
) -> None:
    rng = np.random.default_rng(6)
    shown, shown_images = await seed(rng, "shown", "published", 4)
    waiting, waiting_images = await seed(rng, "waiting", "pending", 3)
    index = SearchIndex(MODEL)
    [query] = queries(rng, 1)
    assert await assert_same(index, query, 20) == set(shown_images)
    assert index.fingerprints == 1
    for _ in range(3):  # nothing changed: three index probes a query, no aggregate
        assert await assert_same(index, query, 20) == set(shown_images)
    assert (index.catch_ups, index.fingerprints) == (4, 1)
    async with other_connection(db) as other:  # a bare UPDATE: the triggers move the counter
        await other("UPDATE articles SET status = ? WHERE id = ?", "published", waiting)
        assert await assert_same(index, query, 20) == set(shown_images + waiting_images)
        assert index.fingerprints == 2
        await other("UPDATE articles SET deleted_at = ? WHERE id = ?", 7, shown)
        assert await assert_same(index, query, 20) == set(waiting_images)
        assert index.fingerprints == 3
        await other("UPDATE articles SET title = ? WHERE id = ?", "renamed", waiting)
        assert await assert_same(index, query, 20) == set(waiting_images)
        assert index.fingerprints == 4  # a shown article's change moves it too: re-checked


async def test_a_vector_committed_late_is_found_and_writers_commit_in_stamp_order(
    db: str,
) -> None:
    """A transaction holding a lower id commits after another writer: the index finds both.

    Writers of vectors take the vector clock (migration 0030), so the second writer waits
    for the first to commit (on SQLite for the single write lock): nothing can commit a
    stamp below one a reader has already seen.
    """
    rng = np.random.default_rng(4)
    article, _ = await seed(rng, "show", "published", 3)
    late, early = await Image.insert(
        *[
            Image(article_id=article, role="look", position=n, kind="runway", key="k")
            for n in (7, 8)
        ]
    ).returning(Image.id)
    index = SearchIndex(MODEL)
    [query] = queries(rng, 1)
    await assert_same(index, query, 20)
    insert = (
        "INSERT INTO image_embeddings (image_id, model, kind, dim, vector, created_at,"
        " neighbours_at) VALUES (?, ?, 'runway', ?, ?, 0, 0)"
    )
    vector = vector_bytes([1.0] * DIM)
    async with other_connection(db) as slow, other_connection(db) as quick:
        await slow("BEGIN")
        await slow(insert, late["id"], MODEL, DIM, vector)  # takes the lower id
        overtaking = asyncio.create_task(quick(insert, early["id"], MODEL, DIM, vector))
        seen = await assert_same(index, query, 20)
        assert late["id"] not in seen
        assert early["id"] not in seen
        assert not overtaking.done()  # waits for the vector clock (or SQLite's write lock)
        await slow("COMMIT")
        await overtaking
    seen = await assert_same(index, query, 20)
    assert {late["id"], early["id"]} <= seen
    stamps = await Image._meta.db.run_querystring(
        QueryString(
            "SELECT image_id, change_seq FROM image_embeddings WHERE image_id IN ({}, {})",
            late["id"],
            early["id"],
        )
    )
    by_image = {int(row["image_id"]): int(row["change_seq"]) for row in stamps}
    assert by_image[late["id"]] < by_image[early["id"]]


async def test_fingerprint_sql_matches_python_near_the_largest_ids(db: str) -> None:
    for article_id, status in [(2**31 - 1, "published"), (2**31 - 2, "published"), (7, "pending")]:
        await Article.insert(
            Article(
                id=article_id,
                source="vogue",
                show_key=str(article_id),
                kind="runway",
                status=status,
            )
        )
    [row] = await Image._meta.db.run_querystring(QueryString(FINGERPRINT_SQL))
    got = Fingerprint(int(row["n"]), int(row["s"]), int(row["h"]))
    assert got == Fingerprint.of({2**31 - 1, 2**31 - 2})


async def test_queries_at_once_share_a_catch_up(db: str) -> None:
    rng = np.random.default_rng(5)
    await seed(rng, "show", "published", 30)
    index = SearchIndex(MODEL)
    [query] = queries(rng, 1)
    answers = await asyncio.gather(*[index.search(query, 10) for _ in range(8)])
    assert all(answer == answers[0] for answer in answers)
    assert [i for i, _ in answers[0]] == [i for i, _ in await scan(query, 10)]
    assert index.catch_ups == 2  # the first, and one that began after the rest arrived


async def test_http_search_drops_an_article_another_process_unpublished(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    reference = ClipEmbedder({"model": str(TINY_CLIP), "batch": 8, "concurrency": 1})
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as backend:
        shown = await add_article("shown", "published")
        hidden = await add_article("hidden", "published")
        images = {
            **await add_images(backend, shown, [1, 2, 3]),
            **await add_images(backend, hidden, [4, 5]),
        }
        ids = sorted(images)
        vectors = reference.embed_images([images[i] for i in ids]).vectors
        items = [
            EmbeddingVector(kind="runway", image_id=i, vector=v)
            for i, v in zip(ids, vectors, strict=True)
        ]
        model = ModelInfo(model_id=reference.model_id, dim=reference.dim)
        await submit(EmbeddingSubmit(items=items), model, plugin_manager, failure_cap=3)

        async def found() -> set[int]:
            response = await backend.client.get("/api/search", params={"q": "a coat", "k": 50})
            assert response.status_code == 200, response.text
            return {item["image_id"] for item in response.json()["items"]}

        assert await found() == set(ids)
        await in_another_process(any_dsn, hidden, "status", "rejected")
        assert await found() == set(ids[:3])
        await in_another_process(any_dsn, hidden, "status", "published")
        await in_another_process(any_dsn, shown, "deleted_at", 77)
        assert await found() == set(ids[3:])
