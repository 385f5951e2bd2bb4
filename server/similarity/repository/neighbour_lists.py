"""The neighbour lists' SQL: unplaced vectors, stored lists and their ranks, placing marks.

Lists live in ``image_neighbors`` as one row per entry, ``rank`` 1 being the most
similar. The hot reads and writes of a pass go straight to the driver with ``?``
placeholders (``$1``… on PostgreSQL): piccolo's one query or dict per row costs more than
the database work there.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from rk.server.platform.db.database import Database, Row
from rk.server.platform.db.public_changes import bump_neighbours
from rk.server.platform.db.sql_rows import database, engine, marks, rows
from rk.server.platform.db.sqlite_database import SqliteDatabase
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.similarity.vectors.pg_clock import hold_vector_clock

T = TypeVar("T")

CHUNK = 500
"""Ids per ``IN (…)`` list and rows per bulk insert (well under both engines' limits)."""


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

    numpy takes the columns as they come. On SQLite the query and ``shape`` both run on a
    reader thread, off the event loop.
    """
    db = database()
    if isinstance(db, SqliteDatabase) and not db.in_transaction():
        return await db.on_reader(lambda conn: shape(_tuples(sql_qmark, args, conn)))
    return shape(list(await db.rows(_engine_sql(db, sql_qmark), *args)))


async def _execute_many(sql_qmark: str, values: list[tuple[Any, ...]]) -> None:
    """``executemany`` on the open transaction's own connection (``?`` placeholders)."""
    db = database()
    if not db.in_transaction():
        raise RuntimeError("_execute_many must run inside a transaction")
    await db.execute_many(_engine_sql(db, sql_qmark), values)


def chunks(values: list[Any]) -> Iterable[list[Any]]:
    """``values`` in lists of at most ``CHUNK``."""
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


async def oldest_unplaced(model: str) -> tuple[str, int] | None:
    """The (kind, dim) of the oldest vector of ``model`` not placed yet; None if none."""
    first = await rows(
        "SELECT kind, dim FROM image_embeddings WHERE model = {} AND neighbours_at = 0"
        " ORDER BY id LIMIT 1",
        model,
    )
    return (str(first[0]["kind"]), int(first[0]["dim"])) if first else None


async def unplaced_vectors(model: str, kind: str, dim: int, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` unplaced rows (id, image_id, vector) of (kind, dim), oldest first."""
    return await rows(
        "SELECT id, image_id, vector FROM image_embeddings"
        " WHERE model = {} AND neighbours_at = 0 AND kind = {} AND dim = {} ORDER BY id LIMIT {}",
        model,
        kind,
        dim,
        limit,
    )


async def rank_scores(model: str, rank: int, shape: Callable[[list[Row]], T]) -> T:
    """``shape`` of the (image_id, score) rows of every list's ``rank``-th entry."""
    return await _read(
        "SELECT image_id, score FROM image_neighbors WHERE model = ? AND rank = ?",
        (model, rank),
        shape,
    )


async def load_lists(model: str, owners: list[int]) -> dict[int, list[tuple[int, float]]]:
    """The stored lists of ``owners``, best first (an owner without one maps to [])."""
    lists: dict[int, list[tuple[int, float]]] = {owner: [] for owner in owners}
    for chunk in chunks(sorted(owners)):
        found = await _read(
            "SELECT image_id, neighbor_id, score FROM image_neighbors"
            f" WHERE model = ? AND image_id IN ({', '.join('?' * len(chunk))})"
            " ORDER BY image_id, rank",
            (model, *chunk),
            list,
        )
        for owner, neighbour, score in found:
            lists[owner].append((neighbour, score))
    return lists


async def delete_ranks_past(cuts: list[tuple[str, int, int]]) -> None:
    """Inside a transaction: per (model, image_id, rank), drop the list's entries past it."""
    await _execute_many(
        "DELETE FROM image_neighbors WHERE model = ? AND image_id = ? AND rank > ?", cuts
    )


async def upsert_ranks(entries: list[tuple[int, str, int, int, float]]) -> None:
    """Inside a transaction: store (image_id, model, neighbor_id, rank, score) in place."""
    await _execute_many(
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, image_id, rank) DO UPDATE"
        " SET neighbor_id = excluded.neighbor_id, score = excluded.score",
        entries,
    )


async def mark_placed(model: str, placed_rows: list[dict[str, Any]]) -> int:
    """Inside the caller's transaction: set ``neighbours_at`` on these embedding rows unless
    their vector changed meanwhile; how many were set."""
    now = int(time.time())
    placed = 0
    for row in placed_rows:
        done = await rows(
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
    async with write_transaction():
        await hold_vector_clock(engine())
        yield


async def forget_replaced(model: str, image_ids: list[int]) -> None:
    """Inside the save's transaction, before these images' vectors are replaced: drop them
    from other lists, and queue the owners of those lists for a full recompute (their
    scores for them are stale); the public counter moves once if any list changed."""
    dropped = 0
    for chunk in chunks(sorted(image_ids)):
        held = marks(len(chunk))
        await rows(
            "UPDATE image_embeddings SET neighbours_at = 0 WHERE model = {} AND image_id IN"
            " (SELECT image_id FROM image_neighbors"
            f" WHERE model = {{}} AND neighbor_id IN ({held}))",
            model,
            model,
            *chunk,
        )
        gone = await rows(
            f"DELETE FROM image_neighbors WHERE model = {{}} AND neighbor_id IN ({held})"
            " RETURNING image_id",
            model,
            *chunk,
        )
        dropped += len(gone)
    if dropped:
        await bump_neighbours()


async def lists_stamp() -> dict[str, Any]:
    """What the stored lists are as of: the ``neighbours`` counter (``lists``) and the
    highest deletion stamp (``gone``)."""
    [row] = await rows(
        "SELECT COALESCE((SELECT version FROM public_changes WHERE name = 'neighbours'), 0)"
        " AS lists, (SELECT COALESCE(MAX(change_seq), 0) FROM vector_deletions) AS gone"
    )
    return row
