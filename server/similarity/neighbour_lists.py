"""The database side of the neighbours job: what to place, the stored vectors, the lists.

Lists live in ``image_neighbors`` as one row per entry, ``rank`` 1 being the most
similar; ``score`` is the cosine similarity (float32). The stored vectors themselves are
held in process by the exact index (``stored_vectors``), not read here per batch.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from piccolo.querystring import QueryString

from rk.server.platform.db.database import Database, Row
from rk.server.platform.db.engine import database_of
from rk.server.platform.db.public_changes import bump_neighbours
from rk.server.platform.db.sqlite_database import SqliteDatabase
from rk.server.platform.db.tables import ImageEmbedding, ImageNeighbor
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.similarity.neighbours import NO_THRESHOLD, Floats, Ids
from rk.server.similarity.vectors.clock import hold_vector_clock

T = TypeVar("T")

CHUNK = 500
"""Ids per ``IN (…)`` list and rows per bulk insert (well under both engines' limits)."""


async def _rows(sql: str, *args: Any) -> list[dict[str, Any]]:
    return list(await ImageEmbedding._meta.db.run_querystring(QueryString(sql, *args)))


def _engine_sql(db: Database, sql_qmark: str) -> str:
    """``?`` placeholders as the engine wants them (``$1``… on PostgreSQL)."""
    if db.engine == "sqlite":
        return sql_qmark
    sql = sql_qmark
    for n in range(1, sql_qmark.count("?") + 1):
        sql = sql.replace("?", f"${n}", 1)
    return sql


def _tuples(sql: str, args: tuple[Any, ...], conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """All rows of ``sql`` as plain tuples (no ``sqlite3.Row`` per row)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, args).fetchall()


async def _read(sql_qmark: str, args: tuple[Any, ...], shape: Callable[[list[Row]], T]) -> T:
    """``shape(rows)`` of one read straight from the driver (``?`` placeholders).

    The hot reads of a pass (100k thresholds, the lists that may change) skip piccolo's
    one dict per row: numpy takes the columns as they come. On SQLite the query and
    ``shape`` both run on a reader thread, off the event loop.
    """
    db = database_of(ImageEmbedding)
    if isinstance(db, SqliteDatabase) and not db.in_transaction():
        return await db.on_reader(lambda conn: shape(_tuples(sql_qmark, args, conn)))
    return shape(list(await db.rows(_engine_sql(db, sql_qmark), *args)))


def _marks(count: int) -> str:
    return ", ".join("{}" for _ in range(count))


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def decode(rows: list[dict[str, Any]], dim: int) -> tuple[Ids, Floats, list[dict[str, Any]]]:
    """Ids and a float32 matrix from rows with ``image_id`` and ``vector``; odd widths dropped."""
    kept = [row for row in rows if len(row["vector"]) == dim * 4]
    ids = np.array([int(row["image_id"]) for row in kept], dtype=np.int64)
    if not kept:
        return ids, np.zeros((0, dim), dtype=np.float32), kept
    matrix = np.frombuffer(b"".join(bytes(row["vector"]) for row in kept), dtype="<f4")
    return ids, matrix.reshape(len(kept), dim).astype(np.float32, copy=False), kept


@dataclass(frozen=True)
class Batch:
    """Vectors of one kind waiting to be placed."""

    kind: str
    dim: int
    ids: Ids
    vectors: Floats
    rows: list[dict[str, Any]]


async def next_batch(model: str, limit: int) -> Batch | None:
    """Up to ``limit`` unplaced vectors of the kind of the oldest unplaced one; None if none."""
    first = await _rows(
        "SELECT kind, dim FROM image_embeddings WHERE model = {} AND neighbours_at = 0"
        " ORDER BY id LIMIT 1",
        model,
    )
    if not first:
        return None
    kind, dim = str(first[0]["kind"]), int(first[0]["dim"])
    rows = await _rows(
        "SELECT id, image_id, vector FROM image_embeddings"
        " WHERE model = {} AND neighbours_at = 0 AND kind = {} AND dim = {} ORDER BY id LIMIT {}",
        model,
        kind,
        dim,
        limit,
    )
    ids, vectors, kept = decode(rows, dim)
    return Batch(kind=kind, dim=dim, ids=ids, vectors=vectors, rows=kept)


class Thresholds:
    """The K-th stored score of every full list of a model, looked up by block."""

    def __init__(self, ids: Ids, scores: Floats) -> None:
        order = np.argsort(ids)
        self.ids = ids[order]
        self.scores = scores[order]

    @classmethod
    async def load(cls, model: str, k: int) -> Thresholds:
        """Read the rank-``k`` entries (lists shorter than ``k`` have none)."""
        return await _read(
            "SELECT image_id, score FROM image_neighbors WHERE model = ? AND rank = ?",
            (model, k),
            cls._of_rows,
        )

    @classmethod
    def _of_rows(cls, rows: list[Row]) -> Thresholds:
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        scores = np.fromiter((row[1] for row in rows), dtype=np.float32, count=len(rows))
        return cls(ids, scores)

    def of(self, block_ids: Ids) -> Floats:
        """Per block row its threshold; ``NO_THRESHOLD`` where the list is not full."""
        out = np.full(len(block_ids), NO_THRESHOLD, dtype=np.float32)
        if len(self.ids) == 0:
            return out
        pos = np.minimum(np.searchsorted(self.ids, block_ids), len(self.ids) - 1)
        found = self.ids[pos] == block_ids
        out[found] = self.scores[pos[found]]
        return out


async def load_lists(model: str, owners: list[int]) -> dict[int, list[tuple[int, float]]]:
    """The stored lists of ``owners``, best first (an owner without one maps to [])."""
    lists: dict[int, list[tuple[int, float]]] = {owner: [] for owner in owners}
    for chunk in _chunks(sorted(owners)):
        rows = await _read(
            "SELECT image_id, neighbor_id, score FROM image_neighbors"
            f" WHERE model = ? AND image_id IN ({', '.join('?' * len(chunk))})"
            " ORDER BY image_id, rank",
            (model, *chunk),
            list,
        )
        for owner, neighbour, score in rows:
            lists[owner].append((neighbour, score))
    return lists


async def _execute_many(sql_qmark: str, rows: list[tuple[Any, ...]]) -> None:
    """``executemany`` on the open transaction's own connection (``?`` placeholders).

    Building one piccolo query per row costs more than the database work here (tens of
    thousands of list rows per pass), so the rows go to the driver in one call.
    """
    db = database_of(ImageNeighbor)
    if not db.in_transaction():
        raise RuntimeError("_execute_many must run inside a transaction")
    await db.execute_many(_engine_sql(db, sql_qmark), rows)


def changed_from(old: list[tuple[int, float]], new: list[tuple[int, float]]) -> int:
    """The first 0-based position where two lists differ (``len`` of the shorter if none)."""
    for position, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return position
    return min(len(old), len(new))


async def write_lists(
    model: str,
    lists: dict[int, list[tuple[int, float]]],
    previous: dict[int, list[tuple[int, float]]] | None = None,
) -> None:
    """Inside the caller's transaction: store these lists and move the public counter once.

    With ``previous`` (what is stored now for some owners), only the tail from the first
    changed rank is written: a newcomer entering a list at rank r moves ranks r..K, not
    1..r-1. Ranks are upserted in place (a stored rank's row is updated, not deleted and
    inserted again), so a moved rank touches only the indexes on ``neighbor_id``; ranks
    past the new list's end are deleted, which only a list that got shorter (or whose
    stored length is not known) can have.
    """
    if not lists:
        return
    before = previous or {}
    owners = sorted(lists)
    shorter = [
        (model, owner, len(lists[owner]))
        for owner in owners
        if owner not in before or len(lists[owner]) < len(before[owner])
    ]
    rows = [
        (owner, model, nid, rank, score)
        for owner in owners
        for cut in [changed_from(before.get(owner, []), lists[owner])]
        for rank, (nid, score) in enumerate(lists[owner][cut:], start=cut + 1)
    ]
    if shorter:
        await _execute_many(
            "DELETE FROM image_neighbors WHERE model = ? AND image_id = ? AND rank > ?", shorter
        )
    if rows:
        await _execute_many(
            "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, image_id, rank) DO UPDATE"
            " SET neighbor_id = excluded.neighbor_id, score = excluded.score",
            rows,
        )
    await bump_neighbours()


async def mark_placed(model: str, rows: list[dict[str, Any]]) -> int:
    """Inside the caller's transaction: set ``neighbours_at`` on these embedding rows unless
    their vector changed meanwhile; how many were set."""
    now = int(time.time())
    placed = 0
    for row in rows:
        done = await _rows(
            "UPDATE image_embeddings SET neighbours_at = {}"
            " WHERE id = {} AND model = {} AND vector = {} RETURNING id",
            now,
            int(row["id"]),
            model,
            bytes(row["vector"]),
        )
        placed += len(done)
    return placed


@asynccontextmanager
async def place_transaction() -> AsyncIterator[None]:
    """The one transaction that writes a batch's lists and marks it placed.

    On PostgreSQL it holds the vector clock first, as every vector writer does: a save
    that drops replaced images from lists and this batch then never wait for each other's
    rows in opposite orders.
    """
    async with write_transaction(ImageNeighbor):
        await hold_vector_clock(ImageNeighbor._meta.db)
        yield


async def forget_replaced(model: str, image_ids: list[int]) -> None:
    """Inside the save's transaction, before these images' vectors are replaced: drop them
    from other lists, and queue the owners of those lists for a full recompute (their
    scores for them are stale); the public counter moves once if any list changed."""
    dropped = 0
    for chunk in _chunks(sorted(image_ids)):
        marks = _marks(len(chunk))
        await _rows(
            "UPDATE image_embeddings SET neighbours_at = 0 WHERE model = {} AND image_id IN"
            " (SELECT image_id FROM image_neighbors"
            f" WHERE model = {{}} AND neighbor_id IN ({marks}))",
            model,
            model,
            *chunk,
        )
        gone = await _rows(
            f"DELETE FROM image_neighbors WHERE model = {{}} AND neighbor_id IN ({marks})"
            " RETURNING image_id",
            model,
            *chunk,
        )
        dropped += len(gone)
    if dropped:
        await bump_neighbours()
