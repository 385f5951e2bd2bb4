"""Text/image search: queries per second of the search index vs re-reading every vector.

For each size N, a fresh database (SQLite by default, ``--pg`` for PostgreSQL) holds N
published images with 512-d unit vectors (40 images per article). Queries are random
512-d unit vectors — what the text tower would hand over — asking for the top 20. Rows,
in the same run and on the same vectors:

- ``floor``: one numpy ``matrix @ query`` over the N vectors held in memory (no top-K,
  no database) — the least any exact search must spend;
- ``index``: ``SearchIndex.search``: the per-query database check (published-set
  fingerprint, vectors stamped since the last check), the matrix-vector product and the top-K;
- ``index check``: that database check alone, when nothing changed;
- ``re-read``: the path before the index — every published vector read from the
  database in blocks of 8,192 and ranked with ``Placement`` (as ``by_vector`` did);
  skipped above ``--reread-max`` vectors.

Both search rows leave out building the answer (one query for the hits and their URLs),
which the two paths share. Also printed: the first load, the index's memory (its arrays,
and the process RSS growth while loading), and the next query after one article was
unpublished or 1,000 new vectors arrived (incremental refreshes).

pgvector's rows (HNSW search and placement, recall against exact, build time, RSS) are
measured by ``bench.vectors`` on the same kind of data, next to the exact index.

    .venv/bin/python -m bench.search [--sizes 100000,1000000] [--pg] [--reread-max N]
        [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager

import asyncpg
import numpy as np
from piccolo.querystring import QueryString

from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.neighbours import BLOCK_ROWS, SKIP, Placement, normalised
from rk.server.similarity.search_index import SearchIndex

MODEL = "bench"
DIM = 512
K = 20
PER_ARTICLE = 40
CHUNK = 50_000
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
MiB = 2**20


def vectors(count: int, seed: int) -> Iterator[np.ndarray]:
    """``count`` unit vectors, a chunk at a time."""
    rng = np.random.default_rng(seed)
    for lo in range(0, count, CHUNK):
        yield normalised(rng.standard_normal((min(CHUNK, count - lo), DIM), dtype=np.float32))


def rows(count: int, first: int, chunk: np.ndarray) -> tuple[list[tuple], list[tuple]]:
    """Image rows and embedding rows for ids ``first..first+len(chunk)-1``."""
    ids = range(first, first + len(chunk))
    images = [(i, (i - 1) // PER_ARTICLE + 1, "look", 1, "runway", f"k{i}") for i in ids]
    embeddings = [
        (i, i, MODEL, "runway", DIM, chunk[n].astype("<f4").tobytes(), 0, 1)
        for n, i in enumerate(ids)
    ]
    return images, embeddings


IMAGE_COLS = ("id", "article_id", "role", "position", "kind", "key")
EMBED_COLS = ("id", "image_id", "model", "kind", "dim", "vector", "created_at", "neighbours_at")


def articles(count: int) -> list[tuple]:
    return [(a, "vogue", f"show-{a}", "runway", "published") for a in range(1, count + 1)]


ARTICLE_COLS = ("id", "source", "show_key", "kind", "status")


def marks(cols: tuple[str, ...]) -> str:
    return ", ".join("?" for _ in cols)


def seed_sqlite(path: str, count: int, floor: np.ndarray) -> None:
    db = sqlite3.connect(path)
    db.executemany(
        f"INSERT INTO articles ({', '.join(ARTICLE_COLS)}) VALUES ({marks(ARTICLE_COLS)})",
        articles(-(-count // PER_ARTICLE)),
    )
    first = 1
    for chunk in vectors(count, seed=1):
        images, embeddings = rows(count, first, chunk)
        db.executemany(
            f"INSERT INTO images ({', '.join(IMAGE_COLS)}) VALUES ({marks(IMAGE_COLS)})", images
        )
        db.executemany(
            f"INSERT INTO image_embeddings ({', '.join(EMBED_COLS)}) VALUES ({marks(EMBED_COLS)})",
            embeddings,
        )
        floor[first - 1 : first - 1 + len(chunk)] = chunk
        first += len(chunk)
    db.commit()
    db.close()


async def seed_pg(dsn: str, count: int, floor: np.ndarray) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        n_articles = -(-count // PER_ARTICLE)
        await conn.copy_records_to_table(
            "articles", records=articles(n_articles), columns=ARTICLE_COLS
        )
        first = 1
        for chunk in vectors(count, seed=1):
            images, embeddings = rows(count, first, chunk)
            await conn.copy_records_to_table("images", records=images, columns=IMAGE_COLS)
            await conn.copy_records_to_table(
                "image_embeddings", records=embeddings, columns=EMBED_COLS
            )
            floor[first - 1 : first - 1 + len(chunk)] = chunk
            first += len(chunk)
        for table in ("articles", "images", "image_embeddings"):
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) FROM {table}"
            )
            await conn.execute(f"VACUUM ANALYZE {table}")
    finally:
        await conn.close()


@asynccontextmanager
async def database(count: int, floor: np.ndarray, pg: bool) -> AsyncIterator[str]:
    """A migrated, seeded database for ``count`` vectors; its DSN."""
    if not pg:
        with tempfile.TemporaryDirectory() as tmp:
            dsn = f"sqlite:///{tmp}/bench.sqlite3"
            await migrate(dsn)
            await asyncio.to_thread(seed_sqlite, f"{tmp}/bench.sqlite3", count, floor)
            yield dsn
        return
    name = f"rk_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"
    try:
        await migrate(dsn)
        await seed_pg(dsn, count, floor)
        yield dsn
    finally:
        admin = await asyncpg.connect(PG_ADMIN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def reread(query: np.ndarray) -> list[tuple[int, float]]:
    """The previous ``by_vector`` ranking: stream every published vector past Placement."""
    placement = Placement([0], query[None, :], K)
    after = 0
    while True:
        rows = await Image._meta.db.run_querystring(
            QueryString(
                "SELECT e.image_id, e.vector FROM image_embeddings e"
                " JOIN images i ON i.id = e.image_id JOIN articles a ON a.id = i.article_id"
                " WHERE e.model = {} AND e.image_id > {}"
                " AND a.status = 'published' AND a.deleted_at = 0"
                " ORDER BY e.image_id LIMIT {}",
                MODEL,
                after,
                BLOCK_ROWS,
            )
        )
        if not rows:
            break
        after = int(rows[-1]["image_id"])
        ids, matrix, _ = decode(list(rows), DIM)
        skip = np.full(len(ids), SKIP, dtype=np.float32)
        await asyncio.to_thread(placement.add_block, ids, matrix, skip)
        if len(rows) < BLOCK_ROWS:
            break
    return placement.lists()[0]


Step = Callable[[np.ndarray], Awaitable[object]]


async def rates(steps: dict[str, tuple[Step, int]], budget_s: float) -> dict[str, float]:
    """Queries per second of each step on the same random queries, taken in turns so that
    load from other processes falls on all of them alike: each runs at least its minimum
    count and until it has spent ``budget_s``."""
    queries = normalised(np.random.default_rng(7).standard_normal((256, DIM)))
    spent = dict.fromkeys(steps, 0.0)
    done = dict.fromkeys(steps, 0)
    while True:
        todo = [n for n, (_, least) in steps.items() if done[n] < least or spent[n] < budget_s]
        if not todo:
            return {name: done[name] / spent[name] for name in steps}
        for name in todo:
            query = queries[done[name] % len(queries)]
            started = time.perf_counter()
            await steps[name][0](query)
            spent[name] += time.perf_counter() - started
            done[name] += 1


async def floor_step(matrix: np.ndarray, query: np.ndarray) -> None:
    """One matrix-vector product, in the event loop's own thread (no hand-off)."""
    np.matmul(matrix, query)


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def one_size(count: int, pg: bool, reread_max: int, budget_s: float) -> dict[str, float]:
    floor = np.empty((count, DIM), dtype=np.float32)
    out: dict[str, float] = {}
    started = time.perf_counter()
    async with database(count, floor, pg) as dsn:
        out["seed_s"] = time.perf_counter() - started
        engine = await connect(dsn)
        try:
            index = SearchIndex(MODEL)
            rss, started = rss_mib(), time.perf_counter()
            await index.refresh()
            out["load_s"] = time.perf_counter() - started
            out["rss_mib"], out["index_mib"] = rss_mib() - rss, index.nbytes() / MiB
            assert len(index) == count, (len(index), count)
            steps: dict[str, tuple[Step, int]] = {
                "floor": (lambda q: floor_step(floor, q), 3),
                "index": (lambda q: index.search(q, K), 3),
                "check": (lambda _: index.refresh(), 3),
            }
            query = normalised(np.ones((1, DIM)))[0]
            if count <= reread_max:
                assert [i for i, _ in await index.search(query, K)] == [
                    i for i, _ in await reread(query)
                ]
                steps["reread"] = (reread, 1)
            out.update(await rates(steps, budget_s))
            out.update(await incremental(dsn, index, pg))
        finally:
            await close(engine)
    return out


async def incremental(dsn: str, index: SearchIndex, pg: bool) -> dict[str, float]:
    """ms of the next query after one article is unpublished, then after 1,000 new vectors."""
    query = normalised(np.ones((1, DIM)))[0]
    first = await index.search(query, K)
    article = (first[0][0] - 1) // PER_ARTICLE + 1
    await Image._meta.db.run_querystring(
        QueryString("UPDATE articles SET status = 'rejected' WHERE id = {}", article)
    )
    started = time.perf_counter()
    after = await index.search(query, K)
    unpublished_ms = (time.perf_counter() - started) * 1000
    assert all((i - 1) // PER_ARTICLE + 1 != article for i, _ in after)
    top = len(index) + PER_ARTICLE  # past the rejected article's rows: ids are unique
    chunk = next(vectors(1000, seed=99))
    images, embeddings = rows(1000, top + 1, chunk)
    target = 2 if article == 1 else 1  # a published article
    images = [(i, target, *rest) for i, _, *rest in images]
    for table, cols, values in (
        ("images", IMAGE_COLS, images),
        ("image_embeddings", EMBED_COLS, embeddings),
    ):
        for row in values:
            places = ", ".join("{}" for _ in cols)
            await Image._meta.db.run_querystring(
                QueryString(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({places})", *row)
            )
    started = time.perf_counter()
    await index.search(query, K)
    added_ms = (time.perf_counter() - started) * 1000
    return {"unpublished_ms": unpublished_ms, "added_ms": added_ms}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--pg", action="store_true", help="PostgreSQL instead of SQLite")
    parser.add_argument("--reread-max", type=int, default=1_000_000)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per rate row")
    parser.add_argument("--quick", action="store_true", help="10,000 vectors, 1 s per row")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    budget = 1.0 if args.quick else args.budget
    engine = "PostgreSQL" if args.pg else "SQLite"
    print(
        f"{engine}, dim {DIM}, top {K}, {PER_ARTICLE} images per article, numpy "
        f"{np.__version__}, {os.cpu_count()} CPUs, load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    header = f"{'vectors':>10}  {'path':<12} {'queries/s':>10} {'ms/query':>10} {'vs floor':>9}"
    print(header)
    print("-" * len(header))
    notes = []
    for count in sizes:
        row = await one_size(count, args.pg, args.reread_max, budget)
        for path in ("floor", "index", "index check", "re-read"):
            key = {"index check": "check", "re-read": "reread"}.get(path, path)
            if key not in row:
                print(f"{count:>10,}  {path:<12} {'not run (over --reread-max)':>31}")
                continue
            ratio = f"{row['floor'] / row[key]:>8.1f}x" if key != "check" else ""
            print(f"{count:>10,}  {path:<12} {row[key]:>10.1f} {1000 / row[key]:>10.2f} {ratio:>9}")
        notes.append(
            f"{count:>10,}: first load {row['load_s']:.1f} s; index arrays "
            f"{row['index_mib']:.0f} MiB, RSS +{row['rss_mib']:.0f} MiB while loading; next "
            f"query after an unpublish {row['unpublished_ms']:.0f} ms, after 1,000 new "
            f"vectors {row['added_ms']:.0f} ms (seeding {row['seed_s']:.0f} s, not counted)"
        )
    print("\n".join(["", *notes]))


if __name__ == "__main__":
    asyncio.run(main())
