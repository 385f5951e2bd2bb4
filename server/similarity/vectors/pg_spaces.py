"""The pgvector tables: one per (model, kind, dim), kept in step with ``image_embeddings``.

``vector_spaces`` names them: space ``N`` is table ``rk_vectors_N`` (embedding id, image
id, the row's ``change_seq``, ``embedding vector(dim)``) with an HNSW index on cosine
distance. Rows follow the embeddings they copy: deleted with them (foreign key), written
in the transaction that saves a vector (``copy_saved``), and copied in batches for vectors
that were there before the space (``backfill``). A space is *ready* once every vector of
its (model, kind, dim) is in it and its HNSW index is built; until then search and
placement use the exact index, so an existing install moves over without downtime.

Every statement of the pgvector path is in this module, ``pg_queries``, ``pg_copy`` and
``pg_build`` (the HNSW index).
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from piccolo.engine.base import Engine

from rk.core.api.vector_indexes import Heartbeat, Progress
from rk.core.config import VectorSettings
from rk.server.platform.db.sql_rows import engine, rows
from rk.server.similarity.vectors.pg_build import build_index, hnsw_ddl
from rk.server.similarity.vectors.pg_clock import hold_vector_clock
from rk.server.similarity.vectors.pg_copy import stored_matrix, upsert_vectors

log = logging.getLogger(__name__)

MIN_VERSION = (0, 5, 0)
"""HNSW arrived in pgvector 0.5.0."""


_known: weakref.WeakKeyDictionary[Engine, set[tuple[str, str, int]]] = weakref.WeakKeyDictionary()
"""Per engine, the (model, kind, dim) whose spaces exist (they are never dropped)."""


@dataclass(frozen=True)
class Space:
    """One pgvector table: the vectors of (model, kind, dim)."""

    id: int
    model: str
    kind: str
    dim: int
    ready_at: int

    @property
    def table(self) -> str:
        return f"rk_vectors_{self.id}"

    @property
    def ready(self) -> bool:
        return self.ready_at > 0


async def extension_problem() -> str | None:
    """None when the bound database has pgvector with HNSW; else one line of what to do."""
    if engine().engine_type == "sqlite":
        return "pgvector needs PostgreSQL (the database is SQLite)"
    found = await rows(
        "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,"
        " EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available,"
        " current_setting('server_version_num')::int / 10000 AS major"
    )
    installed, available, major = found[0]["installed"], found[0]["available"], found[0]["major"]
    if installed is None and available:
        try:
            await rows("CREATE EXTENSION IF NOT EXISTS vector")
        except Exception:
            return (
                "pgvector is installed on the server but not enabled in this database:"
                " run CREATE EXTENSION vector as a superuser"
            )
        return await extension_problem()
    if installed is None:
        return (
            f"PostgreSQL {major} has no pgvector: install it (Debian/Ubuntu: apt install"
            f" postgresql-{major}-pgvector; managed databases: enable the vector extension)"
        )
    version = tuple(int(part) for part in str(installed).split(".")[:3] if part.isdigit())
    if version < MIN_VERSION:
        return f"pgvector {installed} has no HNSW: upgrade to 0.5.0 or newer"
    return None


async def spaces(model: str | None = None) -> list[Space]:
    """The spaces of ``model`` (or of every model)."""
    where = "WHERE model = {}" if model is not None else ""
    found = await rows(
        f"SELECT id, model, kind, dim, ready_at FROM vector_spaces {where} ORDER BY id",
        *([model] if model is not None else []),
    )
    return [Space(**row) for row in found]


async def ensure_space(model: str, kind: str, dim: int) -> Space:
    """The space of (model, kind, dim), created with its table when there is none.

    Made under the vector clock, so every save either commits before it (and ``backfill``
    copies the vector) or sees it (and copies the vector itself). A space made while no
    vector of its kind exists is ready at once, HNSW index included.
    """
    db = engine()
    async with db.transaction():
        await hold_vector_clock(db)
        found = await rows(
            "SELECT id, model, kind, dim, ready_at FROM vector_spaces"
            " WHERE model = {} AND kind = {} AND dim = {}",
            model,
            kind,
            dim,
        )
        if found:
            return Space(**found[0])
        [existing] = await rows(
            "SELECT EXISTS (SELECT 1 FROM image_embeddings"
            " WHERE model = {} AND kind = {} AND dim = {}) AS any",
            model,
            kind,
            dim,
        )
        ready_at = 0 if existing["any"] else int(time.time())
        [row] = await rows(
            "INSERT INTO vector_spaces (model, kind, dim, ready_at) VALUES ({}, {}, {}, {})"
            " RETURNING id",
            model,
            kind,
            dim,
            ready_at,
        )
        space = Space(int(row["id"]), model, kind, dim, ready_at)
        await rows(
            f"CREATE TABLE {space.table} (embedding_id BIGINT PRIMARY KEY"
            " REFERENCES image_embeddings (id) ON DELETE CASCADE,"
            " image_id BIGINT NOT NULL, change_seq BIGINT NOT NULL,"
            f" embedding vector({dim}) NOT NULL)"
        )
        if space.ready:
            await rows(hnsw_ddl(space, concurrently=False))
    log.info("vectors: pgvector space %s for %s/%s (%d-d)", space.table, model, kind, dim)
    return space


async def enabled() -> bool:
    """Whether the bound database has pgvector (a yes is remembered; a no asked again)."""
    db = engine()
    if db.engine_type == "sqlite":
        return False
    if db in _known:
        return True
    [row] = await rows("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS x")
    if row["x"]:
        _known[db] = set()
    return bool(row["x"])


async def prepare_save(model: str, keys: Iterable[tuple[str, int]]) -> None:
    """Before a transaction saves vectors of these (kind, dim): make their missing spaces."""
    if not await enabled():
        return
    known = _known[engine()]
    for kind, dim in sorted(set(keys)):
        if (model, kind, dim) not in known:
            await ensure_space(model, kind, dim)
            known.add((model, kind, dim))


async def copy_saved(model: str, saved: Iterable[tuple[int, str, int, bytes]]) -> None:
    """Inside the transaction that saved them: copy these ``(image_id, kind, dim, vector)``
    into the model's spaces (the caller holds the vector clock).

    Each space's vectors travel in binary as one flat ``real[]``, row ``n`` its ``n``-th
    slice of ``dim`` (as text they cost more to format here and to parse there; see
    ``bench.vector_wire``).
    """
    if not await enabled():
        return
    groups: dict[tuple[str, int], list[tuple[int, bytes]]] = {}
    for image_id, kind, dim, vector in saved:
        groups.setdefault((kind, dim), []).append((image_id, vector))
    if not groups:
        return
    by_key = {(space.kind, space.dim): space for space in await spaces(model)}
    for key, items in sorted(groups.items()):
        space = by_key.get(key)
        if space is None:
            continue  # no space yet: ensure_space and backfill copy it later
        dim = int(space.dim)
        await rows(
            f"INSERT INTO {space.table} (embedding_id, image_id, change_seq, embedding)"
            " SELECT e.id, e.image_id, e.change_seq,"
            f" (({{}}::real[])[(v.n - 1) * {dim} + 1 : v.n * {dim}])::vector"
            " FROM unnest({}::bigint[]) WITH ORDINALITY AS v(image_id, n)"
            " JOIN image_embeddings e ON e.image_id = v.image_id AND e.model = {}"
            " ON CONFLICT (embedding_id) DO UPDATE SET image_id = excluded.image_id,"
            " change_seq = excluded.change_seq, embedding = excluded.embedding",
            np.frombuffer(b"".join(vector for _, vector in items), dtype="<f4").tolist(),
            [image_id for image_id, _ in items],
            model,
        )


async def backfill(
    space: Space,
    settings: VectorSettings,
    progress: Progress | None = None,
    heartbeat: Heartbeat | None = None,
) -> int:
    """Copy every vector of the space's (model, kind, dim) that it lacks or holds stale, in
    batches by embedding id; build the HNSW index if missing; mark the space ready.

    A row a save rewrote meanwhile is never overwritten with an older copy (``change_seq``).
    """
    [count] = await rows(
        "SELECT COUNT(*) AS n FROM image_embeddings WHERE model = {} AND kind = {} AND dim = {}",
        space.model,
        space.kind,
        space.dim,
    )
    total, done, after = int(count["n"]), 0, 0
    while True:
        batch = await rows(
            "SELECT e.id, e.image_id, e.change_seq,"
            " CASE WHEN v.change_seq IS DISTINCT FROM e.change_seq THEN e.vector END AS vector"
            f" FROM image_embeddings e LEFT JOIN {space.table} v ON v.embedding_id = e.id"
            " WHERE e.model = {} AND e.kind = {} AND e.dim = {} AND e.id > {}"
            " ORDER BY e.id LIMIT {}",
            space.model,
            space.kind,
            space.dim,
            after,
            settings.reindex_batch,
        )
        if not batch:
            break
        after = int(batch[-1]["id"])
        stale = [row for row in batch if row["vector"] is not None]
        if stale:
            await upsert_vectors(
                space.table,
                [int(row["id"]) for row in stale],
                [int(row["image_id"]) for row in stale],
                [int(row["change_seq"]) for row in stale],
                stored_matrix([bytes(row["vector"]) for row in stale], space.dim),
            )
        done += len(batch)
        if progress is not None:
            progress(min(done, total), max(total, done))
        if heartbeat is not None:
            await heartbeat()
    await build_index(space, settings.build_memory_mb)
    await rows("UPDATE vector_spaces SET ready_at = {} WHERE id = {}", int(time.time()), space.id)
    return done
