"""Vector indexes side by side: pgvector (HNSW in PostgreSQL) against the exact index.

One database on a private PostgreSQL 16 + pgvector 0.6.2 (the ``pgserver`` dev
dependency) holds N published-or-pending images with 512-d unit vectors (40 images per
article, every tenth article pending), either random or drawn around N/100 noisy cluster
centres (real CLIP vectors cluster). In the same run, on the same rows:

- ``build``: ``rk vectors reindex``'s path (``PgvectorIndex.reindex``): copy the stored
  vectors into the pgvector table by binary COPY in batches, then build the HNSW index (m
  24, ef_construction 128, build memory sized to the table; the log says how long the build
  took); the exact index's first load (every published vector read into this process)
  beside it;
- search: p50 / p99 ms per query (the index's whole call: database round trips included)
  and recall@20 against numpy's exact top-20 of the published vectors, for the exact
  index and for pgvector at each ``--ef``; the process's RSS growth for each;
- placement: 100 new vectors saved through the embeddings service, then placed among the
  N (each new vector's top-20, any status) by numpy over the vectors in memory (floor),
  by the exact index (streaming the stored vectors from the database) and by pgvector
  (one HNSW statement per new vector, 4 in flight on pooled connections), with recall@20
  against numpy.

The server's data stays in ``--data-dir`` (outside the repository): a second run with the
same size and data reuses the seeded, indexed database (a 1M HNSW build takes tens of
minutes on 2 cores).

    .venv/bin/python -m bench.vectors [--size 100000] [--data clustered|random]
        [--ef 40,100,200,400] [--queries 200] [--warm 1] [--data-dir /work/bench-data/pgvector]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from bench.vector_data import (
    DIM,
    MODEL,
    database,
    make_vectors,
    published_mask,
    start_server,
    vector_text,
)
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.vector_indexes import Placed
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.sql_rows import engine, rows
from rk.server.similarity.embeddings import ModelInfo, submit
from rk.server.similarity.vectors.exact import ExactIndex
from rk.server.similarity.vectors.pg_spaces import spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex

K = 20
NEW = 100
MiB = 2**20


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def exact_top(matrix: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = matrix @ query
    top = np.argpartition(-scores, k)[:k]
    return [int(ids[i]) for i in top[np.lexsort((ids[top], -scores[top]))]]


def recall(got: list[int], want: list[int]) -> float:
    return len(set(got) & set(want)) / len(want)


Search = Callable[[np.ndarray], Awaitable[list[tuple[int, float]]]]


async def search_row(
    search: Search, queries: np.ndarray, truth: list[list[int]], warm: np.ndarray
) -> dict:
    """p50 / p99 ms and mean recall@K of ``search`` over the queries, after the ``warm``
    queries (untimed: they load the exact index, or bring index pages into the cache);
    RSS growth."""
    rss = rss_mib()
    times, recalls = [], []
    for query in warm:
        await search(query)
    for query, want in zip(queries, truth, strict=True):
        started = time.perf_counter()
        got = await search(query)
        times.append((time.perf_counter() - started) * 1000)
        recalls.append(recall([i for i, _ in got], want))
    return {
        "p50": float(np.percentile(times, 50)),
        "p99": float(np.percentile(times, 99)),
        "recall": float(np.mean(recalls)),
        "rss": rss_mib() - rss,
    }


async def one_statement(ids: np.ndarray, vectors: np.ndarray, candidates: int) -> Placed:
    """The lists of the placement this replaced (same-run baseline): one statement for the
    batch, vectors sent as text, the HNSW scans one after another in one backend."""
    [space] = await spaces(MODEL)
    async with engine().transaction():
        await rows(f"SET LOCAL hnsw.ef_search = {candidates + 1}")
        found = await rows(
            "SELECT q.owner, n.image_id, n.d FROM unnest({}::bigint[], {}::text[]) AS q(owner, vec)"
            " CROSS JOIN LATERAL (SELECT image_id, embedding <=> q.vec::vector AS d"
            f" FROM {space.table} ORDER BY embedding <=> q.vec::vector LIMIT {{}}) n"
            " WHERE n.image_id <> q.owner ORDER BY q.owner, n.d, n.image_id",
            [int(i) for i in ids],
            [vector_text(v) for v in vectors],
            candidates + 1,
        )
    lists: dict[int, list[tuple[int, float]]] = {int(i): [] for i in ids}
    for row in found:
        lists[int(row["owner"])].append((int(row["image_id"]), 1.0 - float(row["d"])))
    return Placed({owner: scored[:K] for owner, scored in lists.items()}, {})


async def placement(
    vectors: np.ndarray,
    data: str,
    noise: float,
    exact: ExactIndex,
    pg: PgvectorIndex,
    efs: list[int],
    with_exact: bool,
) -> list:
    """Save ``NEW`` vectors through the service, place them each way; rows of the table."""
    [top] = await rows("SELECT MAX(id) AS m FROM articles")
    article = int(top["m"]) + 1
    await rows(
        "INSERT INTO articles (id, source, show_key, kind, status) VALUES"
        " ({}, 'vogue', 'bench-new', 'runway', 'published')",
        article,
    )
    found = await rows(
        "INSERT INTO images (article_id, role, position, kind, key)"
        " SELECT {}, 'look', n, 'runway', 'new' || n FROM generate_series(1, {}) n RETURNING id",
        article,
        NEW,
    )
    new_ids = np.array(sorted(int(r["id"]) for r in found), dtype=np.int64)
    new = make_vectors(NEW, data, seed=99, noise=noise)
    items = [
        EmbeddingVector(kind="runway", image_id=int(i), vector=v.tolist())
        for i, v in zip(new_ids, new, strict=True)
    ]
    await submit(
        EmbeddingSubmit(items=items),
        ModelInfo(model_id=MODEL, dim=DIM),
        new_plugin_manager(load=False),
        failure_cap=3,
    )
    try:
        every = np.concatenate([vectors, new])
        every_ids = np.concatenate([np.arange(1, len(vectors) + 1), new_ids])
        started = time.perf_counter()
        scores = every @ new.T  # one product for all new vectors, then a partition each
        tops = np.argpartition(-scores, K + 1, axis=0)[: K + 1]
        floor_s = time.perf_counter() - started
        truth = {}
        for col, image_id in enumerate(new_ids):
            top = tops[:, col]
            order = top[np.lexsort((every_ids[top], -scores[top, col]))]
            truth[int(image_id)] = [int(every_ids[i]) for i in order if every_ids[i] != image_id][
                :K
            ]
        out = [("numpy, vectors in memory (floor)", floor_s, 1.0)]
        if with_exact:
            started = time.perf_counter()
            lists = await exact.place(MODEL, "runway", new_ids, new, K)
            out.append(
                ("exact index, streamed from the database", time.perf_counter() - started, lists)
            )
        started = time.perf_counter()
        default_ef = VectorSettings().ef_search
        lists = await one_statement(new_ids, new, max(2 * K, default_ef))
        out.append(
            (
                f"pgvector, one statement for the batch (before), ef_search {default_ef}",
                time.perf_counter() - started,
                lists,
            )
        )
        for ef in efs:
            pg.settings = VectorSettings(ef_search=ef)
            started = time.perf_counter()
            lists = await pg.place(MODEL, "runway", new_ids, new, K)
            out.append(
                (
                    f"pgvector, a statement per vector, 4 connections, ef_search {ef}",
                    time.perf_counter() - started,
                    lists,
                )
            )
        pg.settings = VectorSettings()
        for n, (name, seconds, placed) in enumerate(out[1:], start=1):
            got = [recall([i for i, _ in placed.lists[int(i)]], truth[int(i)]) for i in new_ids]
            out[n] = (name, seconds, float(np.mean(got)))
        return out
    finally:
        await rows(
            "DELETE FROM image_embeddings WHERE image_id = ANY({}::bigint[])", new_ids.tolist()
        )
        await rows("DELETE FROM images WHERE article_id = {}", article)
        await rows("DELETE FROM articles WHERE id = {}", article)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--data", choices=("clustered", "random"), default="clustered")
    parser.add_argument("--ef", default="40,100,200,400")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--warm",
        type=int,
        default=1,
        help="untimed queries before each search row (others than the timed ones): the first"
        " loads the exact index; more bring the HNSW index's pages into PostgreSQL's cache",
    )
    parser.add_argument("--noise", type=float, default=1.0, help="clustered: noise length")
    parser.add_argument("--data-dir", default="/work/bench-data/pgvector")
    parser.add_argument(
        "--no-exact-placement",
        action="store_true",
        help="leave out the exact index's placement row: the bench stores no neighbour lists,"
        " so every existing image takes every newcomer as a reverse pair (100M at 1M, more"
        " memory than the machine has); bench.neighbours times the exact job with full lists",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    vectors = make_vectors(args.size, args.data, seed=1, noise=args.noise)
    admin = start_server(Path(args.data_dir) / "server")
    label = f"{args.data}_{args.size}" + (
        f"_n{round(args.noise * 100)}" if args.data == "clustered" else ""
    )
    dsn, timings = await database(admin, f"rk_bench_{label}", vectors)
    mask = published_mask(args.size)
    shown, shown_ids = vectors[mask], np.flatnonzero(mask).astype(np.int64) + 1
    queries = make_vectors(args.queries, args.data, seed=7, noise=args.noise)
    truth = [exact_top(shown, shown_ids, q, K) for q in queries]
    warm = make_vectors(max(1, args.warm), args.data, seed=11, noise=args.noise)
    engine = await connect(dsn)
    try:
        exact = ExactIndex(VectorSettings())
        started, rss = time.perf_counter(), rss_mib()
        await exact.indexes.of(MODEL).refresh()
        exact_load = (time.perf_counter() - started, rss_mib() - rss, exact.nbytes() / MiB)
        results = [
            (
                "exact",
                "-",
                await search_row(lambda q: exact.search(MODEL, q, K), queries, truth, warm),
            )
        ]
        pg = PgvectorIndex(VectorSettings())
        for ef in [int(e) for e in args.ef.split(",")]:
            pg.settings = VectorSettings(ef_search=ef)
            row = await search_row(lambda q: pg.search(MODEL, q, K), queries, truth, warm)
            results.append(("pgvector", str(ef), row))
        pg.settings = VectorSettings()
        placed = await placement(
            vectors,
            args.data,
            args.noise,
            exact,
            pg,
            [int(e) for e in args.ef.split(",")],
            not args.no_exact_placement,
        )
        [size] = await rows(
            "SELECT pg_total_relation_size(format('rk_vectors_%s', id)) AS b,"
            " current_setting('shared_buffers') AS cache FROM vector_spaces"
        )
    finally:
        await close(engine)
    print(
        f"{args.size:,} x {DIM}-d {args.data} vectors, top {K}, 90 % published;"
        f" {os.cpu_count()} CPUs, load average {load} at start,"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())} at end"
    )
    if timings:
        seeded = f"seeded in {timings['seed_s']:.0f} s; " if "seed_s" in timings else ""
        print(f"{seeded}pgvector reindex (copy + HNSW build) {timings['build_s']:.0f} s")
    else:
        print("database reused from an earlier run (build time printed then)")
    print(
        f"pgvector table + HNSW index: {size['b'] / MiB:,.0f} MiB on disk (PostgreSQL"
        f" shared_buffers {size['cache']}, {args.warm} untimed queries before each row);"
        f" exact index first"
        f" load {exact_load[0]:.1f} s, {exact_load[2]:,.0f} MiB of arrays,"
        f" RSS +{exact_load[1]:,.0f} MiB"
    )
    print()
    print("| index | ef_search | p50 ms | p99 ms | recall@20 | RSS growth MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, ef, row in results:
        print(
            f"| {name} | {ef} | {row['p50']:.1f} | {row['p99']:.1f} | {row['recall']:.3f}"
            f" | {row['rss']:+.0f} |"
        )
    print()
    print(f"| placing {NEW} new among {args.size:,} | s | recall@20 |")
    print("|---|---:|---:|")
    for name, seconds, rec in placed:
        print(f"| {name} | {seconds:.2f} | {rec:.3f} |")


if __name__ == "__main__":
    asyncio.run(main())
