"""The vector pairs: rk's exact index against faiss's flat scan, rk's pgvector HNSW against
hnswlib with the same ``m`` and ``ef``, all over the same vectors in one run.

The data is ``bench.vectors``'s: ``size`` clustered 512-d unit vectors in a private
PostgreSQL 16 + pgvector (``pgserver``), seeded and indexed through ``rk vectors reindex``'s
own path, and reused by a later run of the same size (either bench). Each round asks every
query once, one at a time, top 20; items are queries. rk's rows count this process's CPU
and the PostgreSQL backends' (each search reads the database: the exact index checks for
changes, pgvector runs the search); the peers run in this process. Recall@20 is against
numpy's exact top 20 of the published vectors.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from bench.job_queue import backend_cpu_s
from bench.peers.rounds import Round, Sample, Side, alternate
from bench.peers.table import render
from bench.peers.vectors_peers import FlatScan, Graph
from bench.vector_data import DIM, MODEL, database, make_vectors, published_mask
from bench.vectors import exact_top, recall
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.similarity.vectors.exact import ExactIndex
from rk.server.similarity.vectors.pg_build import HNSW_EF_CONSTRUCTION, HNSW_M
from rk.server.similarity.vectors.pgvector import PgvectorIndex

K = 20
WARM_QUERIES = 50
"""Untimed queries before a pair's rounds: the first loads the exact index; pgvector's need
its HNSW pages in PostgreSQL's cache, as hnswlib's graph is in memory from the start."""
WARM_FLAT = 3
EXTRAS = ("p50 ms", "recall@20")
MiB = 2**20

Search = Callable[[np.ndarray], Awaitable[list[int]]]


def query_round(
    search: Search, queries: np.ndarray, truth: list[list[int]], dsn: str | None = None
) -> Round:
    """A round asking every query once; CPU of this process, and of ``dsn``'s backends."""

    async def one() -> Sample:
        server0 = await backend_cpu_s(dsn) if dsn else {}
        cpu0, started = time.process_time(), time.perf_counter()
        times, recalls = [], []
        for query, want in zip(queries, truth, strict=True):
            asked = time.perf_counter()
            got = await search(query)
            times.append(time.perf_counter() - asked)
            recalls.append(recall(got, want))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu0
        server1 = await backend_cpu_s(dsn) if dsn else {}
        cpu += sum(used - server0.get(pid, 0.0) for pid, used in server1.items())
        extra = {"p50 ms": statistics.median(times) * 1e3, "recall@20": float(np.mean(recalls))}
        return Sample(len(queries), seconds, cpu, extra)

    return one


def _ids(search: Callable[[str, np.ndarray, int], Awaitable[list[tuple[int, float]]]]) -> Search:
    """An rk index's search for the bench's model, as image ids."""

    async def ids(query: np.ndarray) -> list[int]:
        return [image_id for image_id, _ in await search(MODEL, query, K)]

    return ids


def _sync(search: Callable[[np.ndarray, int], list[int]]) -> Search:
    """A peer's (blocking, in-process) search, awaitable like rk's."""

    async def ids(query: np.ndarray) -> list[int]:
        return search(query, K)

    return ids


async def run(
    size: int, count: int, rounds: int, admin: str, graphs: Path, hnsw: bool = True
) -> list[str]:
    """Both vector tables over ``size`` vectors, ``count`` queries a round (the exact one
    alone without ``hnsw``: no pgvector build); the database is made (or found) on the
    pgvector server at ``admin``, the hnswlib graph under ``graphs``."""
    vectors = make_vectors(size, "clustered", seed=1)
    label = f"clustered_{size}_n100"  # bench.vectors's name for this data: shared with it
    dsn, timings = await database(admin, f"rk_bench_{label}", vectors, hnsw)
    published = published_mask(size)
    shown, shown_ids = vectors[published], np.flatnonzero(published).astype(np.int64) + 1
    queries = make_vectors(count, "clustered", seed=7)
    truth = [exact_top(shown, shown_ids, query, K) for query in queries]
    warm = make_vectors(WARM_QUERIES, "clustered", seed=11)
    ef = VectorSettings().ef_search
    about = f"{size:,} × 512 clustered unit vectors ({len(shown):,} published), top {K}"
    built = f"; pgvector reindex {timings['build_s']:.0f} s" if "build_s" in timings else ""
    engine = await connect(dsn)
    try:
        exact = ExactIndex(VectorSettings())
        flat = FlatScan(shown, shown_ids)
        rk_exact = Side("rk exact index")
        faiss_default = Side(f"faiss IndexFlatIP, its default {flat.default_threads} threads")
        faiss_flat = Side("faiss IndexFlatIP, 1 thread")
        for query in warm[:WARM_FLAT]:  # a full scan each for faiss: a few are enough
            await exact.search(MODEL, query, K)
            flat.searcher(1)(query, K)
        await alternate(
            [
                (rk_exact, query_round(_ids(exact.search), queries, truth, dsn)),
                (faiss_default, query_round(_sync(flat.searcher(0)), queries, truth)),
                (faiss_flat, query_round(_sync(flat.searcher(1)), queries, truth)),
            ],
            rounds,
        )
        held = exact.nbytes()
        await exact.close()
        del flat
        if hnsw:
            graph_path = graphs / f"hnswlib_{label}_m{HNSW_M}_efc{HNSW_EF_CONSTRUCTION}.bin"
            graph = Graph.load_or_build(graph_path, vectors, published, ef)
            rk_hnsw, hnswlib_graph = Side("rk pgvector HNSW"), Side("hnswlib")
            await _hnsw_rounds(rk_hnsw, hnswlib_graph, graph, warm, queries, truth, dsn, rounds)
    finally:
        await close(engine)
    slower, faster = sorted((faiss_default, faiss_flat), key=Side.rate)  # faiss at its best
    flat_title = f"vectors, exact: {about}, one query at a time, {count} a round{built}"
    memory = (
        f"rk exact index holds {held / MiB:,.0f} MiB (codes, int8 rows, ids); float32 rows"
        f" and ids would be {len(shown) * (DIM * 4 + 16) / MiB:,.0f} MiB"
        f" ({held / (len(shown) * (DIM * 4 + 16)):.2f} of it)"
    )
    tables = [render(flat_title, [rk_exact, slower], faster, "faiss", EXTRAS) + "\n" + memory]
    if hnsw:
        hnsw_title = (
            f"vectors, HNSW: {about}, m {HNSW_M}, ef_construction {HNSW_EF_CONSTRUCTION}, "
            f"ef_search {ef}, one query at a time, {count} a round"
        )
        tables.append(render(hnsw_title, [rk_hnsw], hnswlib_graph, "hnswlib", EXTRAS))
    return tables


async def _hnsw_rounds(
    rk_hnsw: Side,
    peer: Side,
    graph: Graph,
    warm: np.ndarray,
    queries: np.ndarray,
    truth: list[list[int]],
    dsn: str,
    rounds: int,
) -> None:
    """pgvector's and hnswlib's rounds, after warming both (pgvector's pages into the cache)."""
    pg = PgvectorIndex(VectorSettings())
    for query in warm:
        await pg.search(MODEL, query, K)
        graph.search(query, K)
    await alternate(
        [
            (rk_hnsw, query_round(_ids(pg.search), queries, truth, dsn)),
            (peer, query_round(_sync(graph.search), queries, truth)),
        ],
        rounds,
    )
