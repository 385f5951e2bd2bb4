"""The exact index's codes alone, no database: memory, recall@20 and time per query for
each prescan size, on clustered and on CLIP-like (``cone``) vectors (issue 31).

Rows are loaded as the index loads them: pages of 4,096 stamped rows, the first setting
the centre of the sign bits. Recall@20 is of the candidates handed to the exact ranking
(``rerank_count(20)`` rows) against numpy's float64 top 20; the float32 row is the scan the
index did before (``top_k`` over the float32 blocks).

    .venv/bin/python -m bench.vector_codes [--size 1000000] [--queries 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.vector_data import DIM, make_vectors
from rk.server.similarity import vector_codes
from rk.server.similarity.vector_codes import CodeShard, candidates, rerank_count
from rk.server.similarity.vector_shards import Shard, top_k

K = 20
PAGE = 4096
PRESCANS = (250, 500, 1000, 2000)
MiB = 2**20


def load(shard: Shard, vectors: np.ndarray) -> Shard:
    """``shard`` filled a page at a time, ids 1..N."""
    for lo in range(0, len(vectors), PAGE):
        ids = np.arange(lo + 1, min(lo + PAGE, len(vectors)) + 1, dtype=np.int64)
        shard.append(ids, ids // 40, vectors[lo : lo + PAGE])
    return shard


def truth(vectors: np.ndarray, query: np.ndarray) -> set[int]:
    """The exact top ``K`` ids (1-based): the best 10·K by float32, ranked in float64."""
    near = np.argpartition(-(vectors @ query), 10 * K)[: 10 * K]
    scores = vectors[near].astype(np.float64) @ query.astype(np.float64)
    return {int(near[i]) + 1 for i in np.argsort(-scores)[:K]}


def timed(call: Callable[[np.ndarray], Any], queries: np.ndarray) -> tuple[float, list[Any]]:
    """p50 ms of ``call(query)`` over the queries, and its answers."""
    times, answers = [], []
    for query in queries:
        started = time.perf_counter()
        answers.append(call(query))
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3, answers


def rows_for(data: str, size: int, count: int) -> list[str]:
    """The table rows of one kind of data."""
    vectors = make_vectors(size, data, seed=1)
    queries = make_vectors(count, data, seed=7)
    want = [truth(vectors, query) for query in queries]
    flat = load(Shard(DIM), vectors)
    codes = load(CodeShard(DIM), vectors)
    ms, _ = timed(lambda q: top_k(flat.view(), q, K), queries)
    held = flat.nbytes() / MiB
    out = [f"| {data} | float32 scan (before) | — | 1.000 | 1.000 | {ms:.1f} | {held:,.0f} |"]
    setting = vector_codes.PRESCAN
    for prescan in PRESCANS:
        vector_codes.PRESCAN = prescan
        try:
            ms, got = timed(lambda q: candidates(codes.coded(), q, K), queries)
        finally:
            vector_codes.PRESCAN = setting
        found = [len(w & set(g.tolist())) / K for w, g in zip(want, got, strict=True)]
        out.append(
            f"| {data} | codes, prescan {prescan:,} → {rerank_count(K)} | {prescan:,} |"
            f" {np.mean(found):.3f} | {min(found):.3f} | {ms:.1f} | {codes.nbytes() / MiB:,.0f} |"
        )
    return out


def main() -> None:
    """Parse options, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    lines = [
        f"{args.size:,} × {DIM} unit vectors, top {K}, {args.queries} queries, one at a time",
        "",
        "| data | path | prescan | recall@20 | worst query | p50 ms (candidates) | MiB held |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    print("\n".join(lines), flush=True)
    for data in ("clustered", "cone"):
        print("\n".join(rows_for(data, args.size, args.queries)), flush=True)
    print(f"\nload average {load_start:.1f} at start, {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
