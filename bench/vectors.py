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
        [--ef 40,100,200,400] [--queries 200] [--data-dir /work/bench-data/pgvector]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import numpy as np

from rk.core.config import VectorSettings
from rk.core.plugins import new_plugin_manager
from rk.core.vector_indexes import Placed
from rk.core.wire import EmbeddingSubmit, EmbeddingVector
from rk.server.db.engine import close, connect
from rk.server.db.migrate import migrate
from rk.server.services.embeddings import ModelInfo, submit
from rk.server.services.neighbours import normalised
from rk.server.vectors.db import engine, rows
from rk.server.vectors.exact import ExactIndex
from rk.server.vectors.pg_spaces import spaces, vector_text
from rk.server.vectors.pgvector import PgvectorIndex

MODEL = "bench"
DIM = 512
K = 20
PER_ARTICLE = 40
NEW = 100
CHUNK = 50_000
MiB = 2**20


def make_vectors(count: int, data: str, seed: int, noise: float = 1.0) -> np.ndarray:
    """``count`` unit vectors: random, or around ``count / 100`` centres plus noise of length
    ``noise`` (1.0: members sit at cosine ~0.7 from their centre, ~0.5 from each other)."""
    rng = np.random.default_rng(seed)
    if data == "random":
        return normalised(rng.standard_normal((count, DIM), dtype=np.float32))
    centres = normalised(np.random.default_rng(0).standard_normal((max(count // 100, 10), DIM)))
    out = np.empty((count, DIM), dtype=np.float32)
    for lo in range(0, count, CHUNK):
        n = min(CHUNK, count - lo)
        spread = rng.standard_normal((n, DIM), dtype=np.float32) * (noise / np.sqrt(DIM))
        out[lo : lo + n] = normalised(centres[rng.integers(0, len(centres), n)] + spread)
    return out


def published_mask(count: int) -> np.ndarray:
    """Row ``i`` (image id ``i + 1``) is published unless its article is every tenth."""
    articles = np.arange(count) // PER_ARTICLE + 1
    return articles % 10 != 0


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_server(root: Path) -> str:
    """The private PostgreSQL 16 + pgvector under ``root`` (left running for the next run)."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(root, cleanup_mode=None)
    return str(server.get_uri())


async def seed(dsn: str, vectors: np.ndarray) -> None:
    """Articles, images and embeddings by COPY (the trigger stamps ``change_seq``)."""
    count = len(vectors)
    conn = await asyncpg.connect(dsn)
    try:
        n_articles = -(-count // PER_ARTICLE)
        await conn.copy_records_to_table(
            "articles",
            records=[
                (a, "vogue", f"show-{a}", "runway", "pending" if a % 10 == 0 else "published")
                for a in range(1, n_articles + 1)
            ],
            columns=("id", "source", "show_key", "kind", "status"),
        )
        for lo in range(0, count, CHUNK):
            ids = range(lo + 1, min(lo + CHUNK, count) + 1)
            await conn.copy_records_to_table(
                "images",
                records=[
                    (i, (i - 1) // PER_ARTICLE + 1, "look", 1, "runway", f"k{i}") for i in ids
                ],
                columns=("id", "article_id", "role", "position", "kind", "key"),
            )
            await conn.copy_records_to_table(
                "image_embeddings",
                records=[
                    (i, i, MODEL, "runway", DIM, vectors[i - 1].astype("<f4").tobytes(), 1, 1)
                    for i in ids
                ],
                columns=(
                    "id",
                    "image_id",
                    "model",
                    "kind",
                    "dim",
                    "vector",
                    "created_at",
                    "neighbours_at",
                ),
            )
        for table in ("articles", "images", "image_embeddings"):
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) FROM {table}"
            )
            await conn.execute(f"VACUUM ANALYZE {table}")
    finally:
        await conn.close()


async def database(admin: str, name: str, vectors: np.ndarray) -> tuple[str, dict]:
    """The seeded, indexed database ``name``: made when missing or partly seeded; a seeded
    one whose index is not ready yet (a run stopped during the build) is reindexed."""
    dsn = urlunsplit(urlsplit(admin)._replace(path=f"/{name}"))
    conn = await asyncpg.connect(admin)
    exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
    await conn.close()
    timings: dict[str, float] = {}
    seeded = False
    if exists:
        engine = await connect(dsn)
        ready = [s for s in await spaces(MODEL) if s.ready]
        [stored] = await rows("SELECT COUNT(*) AS n FROM image_embeddings")
        await close(engine)
        if ready:
            return dsn, timings
        seeded = int(stored["n"]) == len(vectors)
        if not seeded:
            conn = await asyncpg.connect(admin)
            await conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            await conn.close()
    if not seeded:
        conn = await asyncpg.connect(admin)
        await conn.execute(f'CREATE DATABASE "{name}"')
        await conn.close()
        await migrate(dsn)
        started = time.perf_counter()
        await seed(dsn, vectors)
        timings["seed_s"] = time.perf_counter() - started
    engine = await connect(dsn)
    try:
        started = time.perf_counter()
        await PgvectorIndex(VectorSettings(reindex_batch=10_000)).reindex(MODEL)
        timings["build_s"] = time.perf_counter() - started
    finally:
        await close(engine)
    return dsn, timings


def exact_top(matrix: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = matrix @ query
    top = np.argpartition(-scores, k)[:k]
    return [int(ids[i]) for i in top[np.lexsort((ids[top], -scores[top]))]]


def recall(got: list[int], want: list[int]) -> float:
    return len(set(got) & set(want)) / len(want)


Search = Callable[[np.ndarray], Awaitable[list[tuple[int, float]]]]


async def search_row(search: Search, queries: np.ndarray, truth: list[list[int]]) -> dict:
    """p50 / p99 ms and mean recall@K of ``search`` over the queries; RSS growth."""
    rss = rss_mib()
    times, recalls = [], []
    await search(queries[0])  # first query: loads / warms, timed separately
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
    engine = await connect(dsn)
    try:
        exact = ExactIndex(VectorSettings())
        started, rss = time.perf_counter(), rss_mib()
        await exact.indexes.of(MODEL).refresh()
        exact_load = (time.perf_counter() - started, rss_mib() - rss, exact.nbytes() / MiB)
        results = [
            ("exact", "-", await search_row(lambda q: exact.search(MODEL, q, K), queries, truth))
        ]
        pg = PgvectorIndex(VectorSettings())
        for ef in [int(e) for e in args.ef.split(",")]:
            pg.settings = VectorSettings(ef_search=ef)
            row = await search_row(lambda q: pg.search(MODEL, q, K), queries, truth)
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
            "SELECT pg_total_relation_size(format('rk_vectors_%s', id)) AS b FROM vector_spaces"
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
        f"pgvector table + HNSW index: {size['b'] / MiB:,.0f} MiB on disk; exact index first"
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
