"""Vectors to pgvector as text against binary, per vector, in the same run on the same rows.

A private PostgreSQL 16 + pgvector 0.6.2 (the ``pgserver`` dev dependency, stopped and
deleted at the end) holds N stored 512-d vectors; the process has one pooled connection,
so one backend does every statement. Each row is measured on the same vectors, the two
forms taking turns round by round:

- save: what the transaction that saves embeddings adds to copy a batch into the pgvector
  table, ``--batch`` vectors a transaction: ``copy_saved`` (one flat ``real[]`` a batch)
  against the same function as it was, each vector as pgvector text; into the table
  before its HNSW index exists (the wire and the row write alone), then into the indexed
  table (what a save costs in production, the graph insert included);
- search: ``top_published`` (the query as ``real[]``) against the text statement it
  replaced, top 20 at ``--ef``.

Columns: this process's CPU µs per vector (formatting or encoding, driver, event loop),
the PostgreSQL backend's CPU µs per vector (utime + stime of its ``/proc/<pid>/stat``, in
10 ms ticks: rows sum enough statements for it), and wall µs per vector.

    .venv/bin/python -m bench.vector_wire [--size 5000] [--save 4096] [--batch 32]
        [--queries 400] [--ef 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from bench.vector_data import DIM, MODEL, make_vectors, seed, vector_text
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.similarity.vectors.db import engine, rows
from rk.server.similarity.vectors.pg_queries import PUBLISHED, top_published
from rk.server.similarity.vectors.pg_spaces import Space, backfill, copy_saved, ensure_space, spaces

K = 20
TICK_US = 1e6 / os.sysconf("SC_CLK_TCK")
Saved = list[tuple[int, str, int, bytes]]


async def copy_saved_text(model: str, saved: Saved) -> None:
    """``copy_saved`` as it was (same-run baseline): each vector sent as pgvector text."""
    by_key = {(space.kind, space.dim): space for space in await spaces(model)}
    space = by_key[("runway", DIM)]
    await rows(
        f"INSERT INTO {space.table} (embedding_id, image_id, change_seq, embedding)"
        " SELECT e.id, e.image_id, e.change_seq, v.vec::vector"
        " FROM unnest({}::bigint[], {}::text[]) AS v(image_id, vec)"
        " JOIN image_embeddings e ON e.image_id = v.image_id AND e.model = {}"
        " ON CONFLICT (embedding_id) DO UPDATE SET image_id = excluded.image_id,"
        " change_seq = excluded.change_seq, embedding = excluded.embedding",
        [image_id for image_id, _, _, _ in saved],
        [vector_text(np.frombuffer(vector, dtype="<f4")) for _, _, _, vector in saved],
        model,
    )


async def top_published_text(space: Space, query: np.ndarray, k: int, ef: int) -> None:
    """``top_published`` as it was (same-run baseline): the query as text, sent twice."""
    text = vector_text(query)
    async with engine().transaction():
        await rows(f"SET LOCAL hnsw.ef_search = {int(ef)}")
        await rows(
            "SELECT c.image_id, c.d, a.id IS NOT NULL AS shown FROM (SELECT image_id,"
            " embedding <=> ({}::text)::vector AS d"
            f" FROM {space.table} ORDER BY embedding <=> ({{}}::text)::vector LIMIT {{}}) c"
            " LEFT JOIN images i ON i.id = c.image_id"
            f" LEFT JOIN articles a ON a.id = i.article_id AND {PUBLISHED}"
            " ORDER BY c.d, c.image_id",
            text,
            text,
            ef,
        )


def backend_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Meter:
    """Process CPU, backend CPU and wall time summed over the calls of one row."""

    def __init__(self, backend: int) -> None:
        self.backend = backend
        self.cpu = self.ticks = self.wall = 0.0
        self.count = 0

    async def run(self, work: Callable[[], Awaitable[None]], count: int) -> None:
        cpu, ticks, wall = time.process_time(), backend_ticks(self.backend), time.perf_counter()
        await work()
        self.wall += time.perf_counter() - wall
        self.ticks += backend_ticks(self.backend) - ticks
        self.cpu += time.process_time() - cpu
        self.count += count

    def row(self) -> tuple[float, float, float]:
        n = max(1, self.count)
        return self.cpu * 1e6 / n, self.ticks * TICK_US / n, self.wall * 1e6 / n


async def save_rows(backend: int, batches: list[Saved], rounds: int) -> dict[str, Meter]:
    """Both save forms over the same batches, taking turns round by round."""
    forms = {"text": copy_saved_text, "binary": copy_saved}
    meters = {name: Meter(backend) for name in forms}
    for save in forms.values():  # warm-up: caches filled, the first batch's rows written
        async with engine().transaction():
            await save(MODEL, batches[0])
    for r in range(rounds):
        for name in sorted(forms, reverse=bool(r % 2)):
            save = forms[name]

            async def work(save: Callable[[str, Saved], Awaitable[None]] = save) -> None:
                for batch in batches:
                    async with engine().transaction():
                        await save(MODEL, batch)

            await meters[name].run(work, sum(len(b) for b in batches))
    return meters


async def search_rows(
    backend: int, space: Space, queries: np.ndarray, ef: int, rounds: int
) -> dict[str, Meter]:
    """Both search forms over the same queries, taking turns round by round."""

    async def binary(query: np.ndarray) -> None:
        await top_published(space, query, K, ef)

    async def text(query: np.ndarray) -> None:
        await top_published_text(space, query, K, ef)

    forms = {"text": text, "binary": binary}
    meters = {name: Meter(backend) for name in forms}
    for search in forms.values():
        await search(queries[0])
    for r in range(rounds):
        for name in sorted(forms, reverse=bool(r % 2)):
            search = forms[name]

            async def work(search: Callable[[np.ndarray], Awaitable[None]] = search) -> None:
                for query in queries:
                    await search(query)

            await meters[name].run(work, len(queries))
    return meters


def print_table(title: str, meters: dict[str, Meter]) -> None:
    """Text and binary, and binary ÷ text per column."""
    text, binary = meters["text"].row(), meters["binary"].row()
    for name, row in (("text", text), ("binary", binary)):
        cells = " | ".join(f"{value:.1f}" for value in row)
        print(f"| {title}: {name} | {meters[name].count:,} | {cells} |")
    ratios = " | ".join(f"{b / t:.2f}" if t else "–" for t, b in zip(text, binary, strict=True))
    print(f"| {title}: binary ÷ text | | {ratios} |")


async def print_plans() -> None:
    """How PostgreSQL ran the prepared search statements: a generic plan evaluates the
    query's cast for every candidate row, so the text form is parsed again for each."""
    found = await rows(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
        " WHERE statement LIKE '%ORDER BY embedding <=>%'"
        " AND statement NOT LIKE '%pg_prepared_statements%'"
    )
    for row in found:
        form = "text" if "::text" in row["statement"] else "binary"
        print(
            f"(search, {form}: {row['generic_plans']} generic plans,"
            f" {row['custom_plans']} custom plans)"
        )


async def bench(dsn: str, args: argparse.Namespace) -> None:
    vectors = make_vectors(args.size, "clustered", seed=1)
    await migrate(dsn)
    await seed(dsn, vectors)
    db = await connect(dsn, pool_size=1)  # one connection: one backend does every statement
    try:
        [pid] = await rows("SELECT pg_backend_pid() AS pid")
        backend = int(pid["pid"])
        space = await ensure_space(MODEL, "runway", DIM)  # not ready: no HNSW index yet
        found = await rows(
            "SELECT image_id, vector FROM image_embeddings ORDER BY image_id LIMIT {}", args.save
        )
        saved = [(int(r["image_id"]), "runway", DIM, bytes(r["vector"])) for r in found]
        batches = [saved[i : i + args.batch] for i in range(0, len(saved), args.batch)]
        print(f"{args.size:,} stored {DIM}-d vectors; batches of {args.batch}; one backend")
        print("| row | vectors | process CPU µs/vector | backend CPU µs/vector | wall µs/vector |")
        print("|---|---:|---:|---:|---:|")
        print_table("save, no HNSW index", await save_rows(backend, batches, args.rounds))
        started = time.perf_counter()
        await backfill(space, VectorSettings(reindex_batch=10_000))
        build = time.perf_counter() - started
        [space] = await spaces(MODEL)
        indexed = batches[: max(1, args.indexed // args.batch)]
        print_table("save, HNSW index", await save_rows(backend, indexed, 1))
        queries = make_vectors(args.queries, "clustered", seed=2)
        print_table(
            f"search top {K}, ef_search {args.ef}",
            await search_rows(backend, space, queries, args.ef, args.rounds),
        )
        print(f"(HNSW build over {args.size:,} vectors: {build:.0f} s)")
        await print_plans()
    finally:
        await close(db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=5000, help="stored vectors")
    parser.add_argument("--save", type=int, default=4096, help="vectors saved per round")
    parser.add_argument("--indexed", type=int, default=512, help="vectors saved once indexed")
    parser.add_argument("--batch", type=int, default=32, help="vectors per save transaction")
    parser.add_argument("--queries", type=int, default=400, help="queries per round")
    parser.add_argument("--ef", type=int, default=VectorSettings().ef_search)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rk-vector-wire-") as root:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver

            server = pgserver.get_server(Path(root) / "pg", cleanup_mode="stop")
        try:
            print(f"load average at start: {os.getloadavg()[0]:.1f}")
            asyncio.run(bench(server.get_uri(), args))
            print(f"load average at end: {os.getloadavg()[0]:.1f}")
        finally:
            server.cleanup()


if __name__ == "__main__":
    main()
