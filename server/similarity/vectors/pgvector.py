"""The ``pgvector`` vector index: HNSW inside PostgreSQL, no vector held in the process.

Search asks the space's HNSW index for ``ef_search`` candidates and keeps the published
ones in the same statement, asking again with a larger ``ef_search`` when too few pass.
Placement asks, in one statement per new vector (a few in flight on pooled connections),
for each new vector's ``ef_search`` nearest stored vectors (at least 2·K): the best K
become its list, and every candidate whose stored list it beats is offered to that list
(the reverse side the neighbours job merges). Asking for as many as the HNSW scan visits
anyway costs no extra index work and finds the reverse pairs as far as the new vector's
own neighbourhood reaches.

A space that is not ready yet (an existing install whose vectors are still being copied
in) is served by the exact index meanwhile; ``open`` starts that copy in the background
in one backend process at a time (``job_locks`` lease ``pgvector-backfill``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import ClassVar

from rk.core.api.errors import RkError
from rk.core.api.vector_indexes import (
    Floats,
    Heartbeat,
    Ids,
    Placed,
    Progress,
    Scope,
    Scored,
)
from rk.core.config import VectorSettings
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.job_lock import JobLease, new_holder
from rk.server.similarity.neighbours import NO_THRESHOLD
from rk.server.similarity.vectors.exact import ExactIndex
from rk.server.similarity.vectors.pg_build import build_index
from rk.server.similarity.vectors.pg_queries import (
    MAX_EF_SEARCH,
    kth_scores,
    nearest_stored,
    top_published,
)
from rk.server.similarity.vectors.pg_scoped import pgvector_version, scoped_top
from rk.server.similarity.vectors.pg_spaces import (
    Space,
    backfill,
    ensure_space,
    extension_problem,
    spaces,
)

log = logging.getLogger(__name__)

BACKFILL_LEASE = "pgvector-backfill"
BACKFILL_LEASE_S = 120


class PgvectorIndex:
    """Top-K and placement through HNSW indexes in PostgreSQL (one table per space)."""

    name: ClassVar[str] = "pgvector"
    schemes: ClassVar[tuple[str, ...]] = ("postgresql",)

    def __init__(self, settings: VectorSettings) -> None:
        self.settings = settings
        self._fallback: ExactIndex | None = None
        self._backfill: asyncio.Task[None] | None = None
        self.version: tuple[int, ...] | None = None
        """The server's pgvector version, read at the first scoped search."""
        self.plans: Counter[str] = Counter()
        """How often each plan of ``pg_scoped.scoped_top`` answered a scoped search."""

    @property
    def fallback(self) -> ExactIndex:
        """The exact index, made the first time a space is not ready."""
        if self._fallback is None:
            self._fallback = ExactIndex(self.settings)
        return self._fallback

    async def open(self) -> str | None:
        """Check the extension, make the spaces of every stored (model, kind, dim), and
        start copying vectors into those that are not ready."""
        problem = await extension_problem()
        if problem is not None:
            return problem
        waiting = [space for space, _ in await self.prepare() if not space.ready]
        if waiting:
            log.info("vectors: %d pgvector space(s) to fill; exact index until then", len(waiting))
            self._backfill = asyncio.create_task(self._fill(), name="rk-pgvector-backfill")
        return None

    async def prepare(self, model: str | None = None) -> list[tuple[Space, int]]:
        """Every space of the stored vectors (of ``model``), made when missing, with its
        number of vectors."""
        where = "WHERE model = {}" if model is not None else ""
        found = await rows(
            f"SELECT model, kind, dim, COUNT(*) AS n FROM image_embeddings {where}"
            " GROUP BY model, kind, dim ORDER BY model, kind, dim",
            *([model] if model is not None else []),
        )
        return [
            (await ensure_space(row["model"], row["kind"], int(row["dim"])), int(row["n"]))
            for row in found
        ]

    async def _fill(self) -> None:
        """Fill the spaces that are not ready, holding the backfill lease meanwhile."""
        lease = JobLease(BACKFILL_LEASE, new_holder("pgvector"), BACKFILL_LEASE_S)
        if not await lease.acquire():
            log.info("vectors: another process fills the pgvector spaces")
            return
        try:
            for space in await spaces():
                if not space.ready:
                    copied = await backfill(space, self.settings, heartbeat=_renewer(lease))
                    log.info("vectors: %s ready (%d vectors)", space.table, copied)
        except Exception:
            log.exception("vectors: pgvector backfill failed; `rk vectors reindex` resumes it")
        finally:
            await lease.release()

    async def _stop_fill(self) -> None:
        """Stop this process's background fill (a reindex does its work instead)."""
        await stop_task(self._backfill)
        self._backfill = None

    async def search(
        self,
        model: str,
        query: Floats,
        k: int,
        kind: str | None = None,
        within: Scope | None = None,
    ) -> Scored:
        """The ``k`` published images nearest to ``query`` (HNSW, ``ef_search`` candidates);
        with ``within``, of its articles only (``pg_scoped``: ``min(k, |scope|)`` always)."""
        known = await spaces(model)
        chosen = [s for s in known if s.dim == len(query) and kind in (None, s.kind)]
        if any(not space.ready for space in chosen):
            return await self.fallback.search(model, query, k, kind, within)
        if self._fallback is not None and all(space.ready for space in known):
            self._fallback.indexes.drop(model)  # filled: the copy in memory is no longer needed
        merged: Scored = []
        for space in chosen:
            if within is not None:
                if self.version is None:
                    self.version = await pgvector_version()
                hits, plan = await scoped_top(space, query, k, within, self.settings, self.version)
                self.plans[plan] += 1
                merged.extend(hits)
                continue
            ef = min(MAX_EF_SEARCH, max(self.settings.ef_search, k))
            while True:
                hits, given = await top_published(space, query, k, ef)
                if len(hits) >= k or given < ef or ef >= MAX_EF_SEARCH:
                    break
                ef = min(MAX_EF_SEARCH, ef * 2)  # unpublished candidates crowded the top
            merged.extend(hits)
        merged.sort(key=lambda hit: (-hit[1], hit[0]))
        return merged[:k]

    async def place(
        self,
        model: str,
        kind: str,
        ids: Ids,
        vectors: Floats,
        k: int,
        heartbeat: Heartbeat | None = None,
    ) -> Placed:
        """Each new vector's top-``k`` from its HNSW candidates, and the candidates whose
        stored lists it enters."""
        dim = vectors.shape[1]
        space = next((s for s in await spaces(model) if s.kind == kind and s.dim == dim), None)
        if space is None or not space.ready:
            return await self.fallback.place(model, kind, ids, vectors, k, heartbeat)
        owners = [int(i) for i in ids]
        candidates = min(MAX_EF_SEARCH - 1, max(2 * k, self.settings.ef_search))
        nearest = await nearest_stored(space, owners, vectors, candidates, self.settings.ef_search)
        if heartbeat is not None:
            await heartbeat()
        batch = set(owners)
        others = sorted({n for scored in nearest.values() for n, _ in scored} - batch)
        kth = await kth_scores(model, k, others)
        reverse: dict[int, Scored] = {}
        for owner, scored in nearest.items():
            for neighbour, score in scored:
                if neighbour not in batch and score >= kth.get(neighbour, NO_THRESHOLD):
                    reverse.setdefault(neighbour, []).append((owner, score))
        return Placed({owner: scored[:k] for owner, scored in nearest.items()}, reverse)

    async def reindex(self, model: str | None = None, progress: Progress | None = None) -> int:
        """Copy every missing or stale vector in, then build (or rebuild) each HNSW index
        while writes go on; spaces that were not ready become ready.

        Holds the backfill lease, so no background fill builds an index alongside (two
        concurrent index builds on one table deadlock in PostgreSQL).
        """
        problem = await extension_problem()
        if problem is not None:
            raise RkError(problem)
        await self._stop_fill()
        lease = JobLease(BACKFILL_LEASE, new_holder("pgvector-reindex"), BACKFILL_LEASE_S)
        if not await lease.acquire():
            raise RkError(
                "another process is filling the pgvector tables; try again when it is done"
                " (its log says when the spaces are ready)"
            )
        try:
            return await self._rebuild(model, progress, _renewer(lease))
        finally:
            await lease.release()

    async def _rebuild(
        self, model: str | None, progress: Progress | None, heartbeat: Heartbeat
    ) -> int:
        prepared = await self.prepare(model)
        total = sum(count for _, count in prepared)
        offset = 0
        for space, count in prepared:

            def step(done: int, _total: int, base: int = offset) -> None:
                if progress is not None:
                    progress(base + done, max(total, base + done))

            was_ready = space.ready
            await backfill(space, self.settings, step, heartbeat)
            if was_ready:
                await build_index(space, self.settings.build_memory_mb, rebuild=True)
            offset += count
        if progress is not None:
            progress(offset, max(total, offset))
        return offset

    def nbytes(self) -> int:
        """Nothing but what the exact fallback holds while a space is not ready."""
        return self._fallback.nbytes() if self._fallback is not None else 0

    async def close(self) -> None:
        """Stop a backfill in progress (the next start resumes it) and drop the fallback."""
        await self._stop_fill()
        if self._fallback is not None:
            await self._fallback.close()


def _renewer(lease: JobLease) -> Heartbeat:
    """A heartbeat that renews ``lease`` when due and stops the work once it is lost."""

    async def heartbeat() -> None:
        if not await lease.renew_if_due():
            raise RkError("pgvector backfill: lease lost to another process")

    return heartbeat
