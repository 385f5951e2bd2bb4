"""An in-process index of a model's published vectors, kept fresh from the database.

Text and image search used to read every published vector per query (seconds at 1M
images). Here each backend process holds, per (kind, dim) of a model, compressed codes of
the vectors of images of published, live articles (``vector_codes.CodeShard``: sign bits
and int8, 0.29 of the float32 rows' memory). A query scans the sign bits, re-scores the
nearest from int8, and ranks the best few dozen exactly by their float32 vectors read back
from the database (the source of truth): scores are exact cosines, ties by image id.

Several backend processes share one database, so before every query the index asks the
database what changed (in-process events would miss the other processes):

- articles: the public content counter first (one row of ``public_changes``, moved by the
  database's own triggers whenever an article becomes, stays or stops being published, so
  no writer can forget it). Only when it moved, a fingerprint of the published, live set —
  count, sum of ids, sum of a hash of the ids — from one aggregate over ``articles``, read
  in the same statement as the counter. It compares states, not clocks (no ``updated_at``
  discipline, no same-second ties). When it differs, the published ids are read: rows of
  articles that left are dropped, and only the vectors of articles that joined are read.
  A query that finds nothing changed costs three index probes, not an aggregate that grows
  with the archive.
- vectors: rows of ``image_embeddings`` whose ``change_seq`` is above the highest seen
  (an index range, empty when nothing changed), with the vector only where it counts.
  The database stamps ``change_seq`` on every write of a vector in commit order
  (migration 0030), so what a reader sees is always every stamp up to the highest it sees:
  nothing committed can hide below it, and no timing constant is needed. Stamps only grow,
  even when the newest vectors are deleted (migration 0035).
- deletions: rows of ``vector_deletions`` stamped on the same clock (migration 0036), read
  for the same range of stamps as the vectors and applied before them, so a deleted vector
  leaves the index (and an image id SQLite hands out again never shows an old vector).

The rows held are exactly: this model's vectors stamped up to the highest ``change_seq``
seen and not deleted by then, of images of the articles in ``published``. A vector
re-submitted for an image the index holds replaces the held one. Answers are re-checked
against the database by ``services.search``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from piccolo.engine.base import Engine

from rk.core.api.vector_indexes import Scope
from rk.server.platform.db.sql_rows import engine
from rk.server.similarity.neighbour_lists import decode
from rk.server.similarity.neighbours import Floats, Ids
from rk.server.similarity.repository.vector_copies import (
    HASH_FACTORS,
    HASH_PRIMES,
    change_stamps,
    published_article_ids,
    published_fingerprint,
    published_rows_after,
    published_rows_of_articles,
    vectors_of_images,
)
from rk.server.similarity.vector_codes import CodedPart, CodeShard, candidates
from rk.server.similarity.vector_shards import Mask, top_k
from rk.server.similarity.vector_stamps import catching_up, stamped_pages

log = logging.getLogger(__name__)

_P1, _P2, _P3 = HASH_PRIMES
_A, _B = HASH_FACTORS
ARTICLES_PER_QUERY = 500
"""Ids per ``IN (…)`` list: articles to load, candidates to read back."""
INLINE_ROWS = 32768
"""Up to this many rows the candidates are picked in the event loop (well under a
millisecond); above, in a thread, so the loop keeps serving requests."""


@dataclass(frozen=True)
class Fingerprint:
    """Count, id sum and id-hash sum of a set of article ids (what ``published_fingerprint``
    adds)."""

    n: int = 0
    s: int = 0
    h: int = 0

    @classmethod
    def of(cls, ids: set[int]) -> Fingerprint:
        return cls(len(ids), sum(ids), sum(id_hash(i) for i in ids))

    def without(self, ids: set[int]) -> Fingerprint:
        gone = Fingerprint.of(ids)
        return Fingerprint(self.n - gone.n, self.s - gone.s, self.h - gone.h)


def id_hash(article_id: int) -> int:
    """The hash ``published_fingerprint`` sums, in Python."""
    left = article_id % _P1 * _A % _P1
    right = article_id % _P2 * _B % _P2
    return left * right % _P3


class SearchIndex:
    """The published vectors of one model, for the engine the tables are bound to."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._engine: Engine = engine()
        self._started = 0
        self._fresh_as_of = 0
        self._task: asyncio.Task[None] | None = None
        self._readers = 0
        self._fingerprints = 0
        self._reset()

    def _reset(self) -> None:
        self.shards: dict[tuple[str, int], CodeShard] = {}
        self.published: set[int] = set()
        self.fingerprint = Fingerprint()
        self.content = -1
        self.seen_seq = 0
        self.top_id = 0

    def __len__(self) -> int:
        return sum(len(shard) for shard in self.shards.values())

    @property
    def catch_ups(self) -> int:
        """How many checks against the database this index has started."""
        return self._started

    @property
    def fingerprints(self) -> int:
        """How many of those read the published set's fingerprint (the content counter had
        moved, or nothing was held yet)."""
        return self._fingerprints

    def nbytes(self) -> int:
        """Memory held: the codes, int8 rows and their id arrays."""
        return sum(shard.nbytes() for shard in self.shards.values())

    async def search(
        self, query: Floats, k: int, kind: str | None = None, within: Scope | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` best published images for a unit ``query``, as (image id, cosine); with
        ``within``, of its articles only.

        The codes held pick the candidates (``vector_codes.candidates``; a scope's mask is
        applied inside that scan, before any candidate is chosen); their float32 vectors,
        read from the database, rank them: the scores are exact cosines.
        """
        await self.refresh()
        shards = [
            shard
            for (shard_kind, dim), shard in self.shards.items()
            if dim == len(query) and kind in (None, shard_kind)
        ]
        parts: list[CodedPart] = [part for shard in shards for part in shard.coded()]
        keep: Mask | None = None
        if within is not None:
            coded = [shard for shard in shards if shard.centre is not None]
            masks = [mask for shard in coded for mask in shard.masks(within.articles)]
            keep = np.concatenate(masks) if masks else np.zeros(0, dtype=np.bool_)
        if sum(len(part.images) for part in parts) <= INLINE_ROWS:
            picked = candidates(parts, query, k, keep)
        else:
            picked = await self._in_thread(parts, query, k, keep)
        if not len(picked):
            return []
        found = [
            row
            for start in range(0, len(picked), ARTICLES_PER_QUERY)
            for row in await vectors_of_images(
                self.model, picked[start : start + ARTICLES_PER_QUERY]
            )
        ]
        images, vectors, _ = decode(found, len(query))
        # in float64, rounded once: equal vectors score equal wherever BLAS places them
        return top_k([(vectors.astype(np.float64), images)], query.astype(np.float64), k)

    async def _in_thread(
        self, parts: list[CodedPart], query: Floats, k: int, keep: Mask | None
    ) -> Ids:
        """``candidates`` in a thread, so the event loop keeps serving requests."""
        loop = asyncio.get_running_loop()

        def read() -> Ids:
            try:
                return candidates(parts, query, k, keep)
            finally:  # counted down when the thread is done, even if the caller gave up
                loop.call_soon_threadsafe(self._read_done)

        self._readers += 1  # while a thread reads the views, rows are not moved in place
        return await asyncio.to_thread(read)

    def _read_done(self) -> None:
        self._readers -= 1

    async def refresh(self) -> None:
        """Catch up with every change committed before this call.

        Concurrent callers share one catch-up, if it started after they arrived; it runs as
        a task of its own, so a cancelled request does not abandon a load half-way.
        """
        arrival = self._started
        while self._fresh_as_of <= arrival:
            task = self._task
            if task is None or task.done():
                self._started += 1
                task = self._task = asyncio.create_task(self._catch_up(self._started))
                task.add_done_callback(_consume)
            await asyncio.shield(task)

    async def _catch_up(self, run: int) -> None:
        if engine() is not self._engine:
            self._engine = engine()
            self._reset()
        with catching_up(self, log, "search index", self._reset, BaseException):
            row = await change_stamps()
            if int(row["content"]) != self.content:
                self._fingerprints += 1
                row = await published_fingerprint()
                now = Fingerprint(int(row["n"]), int(row["s"]), int(row["h"]))
                await self._sync_articles(now)
                self.content = int(row["content"])
            top = max(int(row["top"]), int(row["gone"]))
            if top > self.seen_seq:
                await self._read_new(top)
        self._fresh_as_of = run

    async def _sync_articles(self, now: Fingerprint) -> None:
        """Follow the published set: drop the rows of articles that left, load the joiners."""
        if now == self.fingerprint:
            return
        current = await published_article_ids()
        gone, joined = self.published - current, sorted(current - self.published)
        self.published, self.fingerprint = current, Fingerprint.of(current)
        self._drop(gone)
        if not self.seen_seq:
            return  # nothing read yet: ``_read_new`` reads every row
        for start in range(0, len(joined), ARTICLES_PER_QUERY):
            chunk = joined[start : start + ARTICLES_PER_QUERY]
            self._take(await published_rows_of_articles(self.model, self.seen_seq, chunk))

    async def _read_new(self, top: int) -> None:
        """Apply the deletions and rows stamped above the highest stamp seen, up to ``top``
        (what the check saw) or further, a page of rows at a time.

        A page's deletions go first: a live row of an image is always stamped after the
        deletion of its previous row (one row per image and model), so it is taken after.
        """
        pages = stamped_pages(published_rows_after, self.model, self.seen_seq, top)
        async for rows, deleted, upto in pages:
            stale = set(deleted)
            # an id read before may be a vector held already: replace it
            stale.update(
                int(row["image_id"])
                for row in rows
                if row["model"] == self.model and int(row["id"]) <= self.top_id
            )
            if stale:
                self._drop_images(sorted(stale))
            self._take(rows)
            self.seen_seq = upto
            self.top_id = max([self.top_id, *(int(row["id"]) for row in rows)])

    def _take(self, rows: list[dict[str, Any]]) -> None:
        """Add the vectors of this model's rows of held articles.

        A held article whose row comes without a vector was unpublished since the
        published set was read: it is dropped, so the next check loads it if it is back.
        """
        groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
        stale: set[int] = set()
        for row in rows:
            article = int(row["article_id"])
            if row["model"] != self.model or article not in self.published:
                continue
            if row["vector"] is None:
                stale.add(article)
            else:
                groups.setdefault((str(row["kind"]), len(row["vector"]) // 4), []).append(row)
        for (kind, dim), group in groups.items():
            images, vectors, kept = decode(group, dim)
            articles = np.array([int(row["article_id"]) for row in kept], dtype=np.int64)
            self.shards.setdefault((kind, dim), CodeShard(dim)).append(images, articles, vectors)
        self._drop(stale)

    def _drop_images(self, images: list[int]) -> None:
        """Stop holding these images' rows (deleted, or about to be read again)."""
        ids = np.array(sorted(images), dtype=np.int64)
        for shard in self.shards.values():
            shard.remove_images(ids, in_place=self._readers == 0)

    def _drop(self, articles: set[int]) -> None:
        """Stop holding these articles and their rows."""
        if not articles:
            return
        held = articles & self.published
        self.published -= held
        self.fingerprint = self.fingerprint.without(held)
        ids = np.array(sorted(articles), dtype=np.int64)
        for shard in self.shards.values():
            shard.remove_articles(ids, in_place=self._readers == 0)


class SearchIndexes:
    """One ``SearchIndex`` per model, made on first use (one of these per backend app)."""

    def __init__(self) -> None:
        self._by_model: dict[str, SearchIndex] = {}

    def of(self, model: str) -> SearchIndex:
        """The index of ``model``."""
        index = self._by_model.get(model)
        if index is None:
            index = self._by_model[model] = SearchIndex(model)
        return index

    def drop(self, model: str) -> None:
        """Forget ``model``'s index and its arrays."""
        self._by_model.pop(model, None)

    def all(self) -> list[SearchIndex]:
        """Every model's index made so far."""
        return list(self._by_model.values())


def _consume(task: asyncio.Task[None]) -> None:
    """Retrieve a failed catch-up's exception when no caller waited for it (it was cancelled)."""
    if not task.cancelled():
        task.exception()
