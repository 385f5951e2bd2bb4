"""Where pgvector's time goes beside hnswlib's, on the peers' database (issue 31).

rk's pgvector search is five round trips: the model's spaces (one ``SELECT``), then one
transaction of ``BEGIN``, ``SET LOCAL hnsw.ef_search``, the top-K statement, ``COMMIT``.
Each query is timed whole, then each part alone: a trivial ``SELECT 1``, the transaction
with ``SELECT 1`` in place of the search, the statement's server-side execution time
(``EXPLAIN (ANALYZE, BUFFERS)``) and the buffers it touched, and hnswlib's own search of
the same graph parameters. The HNSW index's buffer cache hit ratio over the run comes from
``pg_statio_user_indexes``. Run after ``bench.peers`` built the database:

    .venv/bin/python -m bench.peers.vectors_gap [--size 100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.peers.vectors import WARM_QUERIES, K
from bench.peers.vectors_peers import Graph
from bench.vector_data import (
    MODEL,
    add_server_options,
    database,
    make_vectors,
    published_mask,
    server_of,
)
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.sql_rows import rows
from rk.server.similarity.vectors.pg_build import HNSW_EF_CONSTRUCTION, HNSW_M
from rk.server.similarity.vectors.pg_database import pg_database
from rk.server.similarity.vectors.pg_queries import top_published_sql
from rk.server.similarity.vectors.pg_spaces import Space, spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex


async def p50_ms(call: Callable[[np.ndarray], Awaitable[Any]], queries: np.ndarray) -> float:
    """The median ms of ``call`` over the queries, one at a time."""
    times = []
    for query in queries:
        started = time.perf_counter()
        await call(query)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


async def index_blocks(space: Space) -> tuple[int, int]:
    """(hits, reads) of the space's indexes in PostgreSQL's buffer cache so far."""
    [row] = await rows(
        "SELECT COALESCE(SUM(idx_blks_hit), 0) AS hit, COALESCE(SUM(idx_blks_read), 0) AS rd"
        " FROM pg_statio_user_indexes WHERE relname = {}",
        space.table,
    )
    return int(row["hit"]), int(row["rd"])


async def explained(space: Space, query: np.ndarray, ef: int) -> tuple[float, int, int]:
    """The statement's execution ms and its shared buffers hit and read, as EXPLAIN says."""
    async with pg_database().transaction() as tx:
        await tx.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
        [row] = await tx.rows(
            f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {top_published_sql(space)}",
            query.astype(np.float32).tolist(),
            ef,
        )
    [plan] = json.loads(next(iter(row.values())))
    top = plan["Plan"]
    return (
        float(plan["Execution Time"]),
        int(top["Shared Hit Blocks"]),
        int(top["Shared Read Blocks"]),
    )


async def gap(size: int, count: int, admin: str, graphs: Path) -> str:
    """The table for ``size`` vectors (the peers' database and graph, made if missing)."""
    vectors = make_vectors(size, "clustered", seed=1)
    label = f"clustered_{size}_n100"
    dsn, _ = await database(admin, f"rk_bench_{label}", vectors)
    queries = make_vectors(count, "clustered", seed=7)
    ef = VectorSettings().ef_search
    graph_path = graphs / f"hnswlib_{label}_m{HNSW_M}_efc{HNSW_EF_CONSTRUCTION}.bin"
    graph = Graph.load_or_build(graph_path, vectors, published_mask(size), ef)
    engine = await connect(dsn)
    try:
        [space] = [s for s in await spaces(MODEL) if s.ready]
        pg = PgvectorIndex(VectorSettings())
        for query in make_vectors(WARM_QUERIES, "clustered", seed=11):
            await pg.search(MODEL, query, K)
        hit0, read0 = await index_blocks(space)

        async def trivial_transaction(_: np.ndarray) -> None:
            async with pg_database().transaction() as tx:
                await tx.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
                await tx.rows("SELECT 1")

        async def hnswlib(query: np.ndarray) -> None:
            graph.search(query, K)

        whole = await p50_ms(lambda q: pg.search(MODEL, q, K), queries)
        hit1, read1 = await index_blocks(space)
        lookup = await p50_ms(lambda _: spaces(MODEL), queries)
        select1 = await p50_ms(lambda _: rows("SELECT 1"), queries)
        shell = await p50_ms(trivial_transaction, queries)
        plans = [await explained(space, query, ef) for query in queries]
        peer = await p50_ms(hnswlib, queries)
    finally:
        await close(engine)
    execution = statistics.median(p[0] for p in plans)
    hits = statistics.mean(p[1] for p in plans)
    reads = statistics.mean(p[2] for p in plans)
    ratio = (hit1 - hit0) / max(1, hit1 - hit0 + read1 - read0)
    lines = [
        f"pgvector vs hnswlib, where the time goes: {size:,} × 512 clustered, top {K},"
        f" m {HNSW_M}, ef_construction {HNSW_EF_CONSTRUCTION}, ef_search {ef},"
        f" {count} queries, load average {os.getloadavg()[0]:.1f}",
        "",
        "| part | p50 ms |",
        "|---|---:|",
        f"| rk pgvector search, whole (client side) | {whole:.2f} |",
        f"| spaces lookup alone (one SELECT) | {lookup:.2f} |",
        f"| SELECT 1 alone (one round trip) | {select1:.2f} |",
        f"| BEGIN; SET LOCAL; SELECT 1; COMMIT (its transaction, no search) | {shell:.2f} |",
        f"| the statement's execution in PostgreSQL (EXPLAIN ANALYZE) | {execution:.2f} |",
        f"| hnswlib, same m and ef | {peer:.2f} |",
        "",
        f"HNSW index buffer cache hit ratio over the timed queries: {ratio:.4f};"
        f" buffers a statement touched: {hits:,.0f} hit, {reads:,.1f} read",
        f"rk ÷ hnswlib latency {whole / peer:.2f}x; without the round trips"
        f" (execution alone) {execution / peer:.2f}x",
    ]
    return "\n".join(lines)


async def main() -> None:
    """Parse options, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--data-dir", type=Path, default=Path("/work/bench-data/pgvector"))
    add_server_options(parser)
    args = parser.parse_args()
    admin = server_of(args, args.data_dir)
    print(await gap(args.size, args.queries, admin, args.data_dir))


if __name__ == "__main__":
    asyncio.run(main())
