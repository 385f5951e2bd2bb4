"""Building a pgvector space's HNSW index: its DDL, its build memory, and the build itself.

The build runs ``CONCURRENTLY`` (writes go on) with ``maintenance_work_mem`` sized to hold
the graph. PostgreSQL builds it in parallel when the table is large enough, and then puts
the graph in dynamic shared memory (``/dev/shm``); where that is small (Docker's default is
64 MB) the build fails with a class-53 error, and is done again serially, in the
backend's own memory.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import asyncpg

from rk.server.similarity.vectors.pg_database import pg_database

if TYPE_CHECKING:
    from rk.server.similarity.vectors.pg_spaces import Space

log = logging.getLogger(__name__)

HNSW_M = 24
HNSW_EF_CONSTRUCTION = 128
"""Graph degree and build beam: pgvector's defaults (16, 64) reached recall@20 0.70 on
clustered 512-d vectors here; these reach 0.98 at ``ef_search`` 200 (docs/PITFALLS)."""
MAX_AUTO_BUILD_MB = 8192
"""The most build memory taken unasked (a 1M × 512-d graph is about 3 GiB)."""


def hnsw_ddl(space: Space, *, concurrently: bool) -> str:
    """``CREATE INDEX`` of the space's HNSW index (cosine distance)."""
    how = "CONCURRENTLY " if concurrently else ""
    return (
        f"CREATE INDEX {how}IF NOT EXISTS {space.table}_hnsw ON {space.table}"
        f" USING hnsw (embedding vector_cosine_ops)"
        f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
    )


def build_memory_mb(count: int, dim: int, setting: int) -> int:
    """``maintenance_work_mem`` of a build: ``setting`` when positive, else enough for the
    HNSW graph of ``count`` vectors to be built in memory (twice an element's vector and
    level-0 links, at least 64 MiB, at most ``MAX_AUTO_BUILD_MB``).

    A graph that outgrows it is finished on disk, many times slower (1M × 512-d under
    1 GiB: about 20,000 vectors a minute on 2 cores).
    """
    if setting > 0:
        return setting
    element = 4 * dim + 8 + 2 * HNSW_M * 16 + 256
    return max(64, min(MAX_AUTO_BUILD_MB, -(-2 * count * element // 2**20)))


def short_of_shared_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL failing to get dynamic shared memory (class 53)."""
    return (
        isinstance(exc, asyncpg.exceptions.InsufficientResourcesError)
        and "shared memory" in str(exc).lower()
    )


async def build_index(space: Space, memory_mb: int, *, rebuild: bool = False) -> None:
    """Build the space's HNSW index while writes go on (``CONCURRENTLY``, on a pool connection
    of its own, outside any transaction), in ``memory_mb`` (0: sized to the table).

    A parallel build that finds too little shared memory leaves an invalid index behind:
    that is dropped and the build done again without parallel workers (one warning line).
    """
    db = pg_database()
    async with db.pool.acquire() as conn:  # outside any transaction, as CONCURRENTLY needs
        count = await conn.fetchval(f"SELECT COUNT(*) FROM {space.table}")
        memory = build_memory_mb(int(count), space.dim, memory_mb)
        await conn.execute(f"SET maintenance_work_mem = '{memory}MB'")
        try:
            started = time.perf_counter()
            try:
                if not await _build(conn, space, rebuild):
                    return
            except asyncpg.exceptions.InsufficientResourcesError as exc:
                if not short_of_shared_memory(exc):
                    raise
                log.warning(
                    "vectors: %s parallel HNSW build is short of shared memory (%s): building"
                    " it serially, which is slower; give /dev/shm more than the %d MiB of"
                    " build memory (docker run --shm-size=%dm)",
                    space.table,
                    str(exc).splitlines()[0],
                    memory,
                    memory + 256,
                )
                await _drop_invalid(conn, space)
                await conn.execute("SET max_parallel_maintenance_workers = 0")
                await _build(conn, space, rebuild)
            log.info(
                "vectors: %s HNSW index built over %d vectors in %.0f s (%d MiB build memory)",
                space.table,
                count,
                time.perf_counter() - started,
                memory,
            )
            await _advise_cache(conn, space)
        finally:
            await conn.execute("RESET maintenance_work_mem; RESET max_parallel_maintenance_workers")


async def _build(conn: asyncpg.Connection, space: Space, rebuild: bool) -> bool:
    """Create the index, or rebuild it when asked or invalid; False when nothing was to do."""
    valid = await conn.fetchval(
        "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE c.relname = $1",
        f"{space.table}_hnsw",
    )
    if valid is None:
        await conn.execute(hnsw_ddl(space, concurrently=True))
    elif rebuild or not valid:  # an interrupted concurrent build leaves an invalid one
        await conn.execute(f"REINDEX INDEX CONCURRENTLY {space.table}_hnsw")
    else:
        return False
    return True


async def _drop_invalid(conn: asyncpg.Connection, space: Space) -> None:
    """Drop what a failed concurrent build left: the invalid index itself (``CREATE``) or
    its ``_ccnew`` copy (``REINDEX``)."""
    names = await conn.fetch(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE i.indrelid = $1::regclass AND NOT i.indisvalid AND c.relname LIKE $2",
        space.table,
        f"{space.table}\\_hnsw%",
    )
    for row in names:
        await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{row["relname"]}"')


async def _advise_cache(conn: asyncpg.Connection, space: Space) -> None:
    """Warn when the table and its index outgrow ``shared_buffers``: searches then read
    graph pages through the operating system's cache (1M × 512-d, ef_search 100: p50
    9.2 ms at 128 MB, 5.3 ms at 6 GB holding the 5.3 GB; README, bench.vectors)."""
    row = await conn.fetchrow(
        "SELECT s.size > s.cache AS over, pg_size_pretty(s.size) AS size,"
        " pg_size_pretty(s.cache) AS cache FROM (SELECT pg_total_relation_size($1::regclass)"
        " AS size, pg_size_bytes(current_setting('shared_buffers')) AS cache) s",
        space.table,
    )
    if row is not None and row["over"]:
        log.warning(
            "vectors: %s and its HNSW index take %s, more than PostgreSQL's shared_buffers"
            " (%s): searches will read index pages through the OS cache, up to twice as"
            " slow; give shared_buffers room for them",
            space.table,
            row["size"],
            row["cache"],
        )
