"""The SQL of media references: per-key locks, running jobs' claims and image rows using a key.

Claiming and deleting take the same per-key lock (``pg_advisory_xact_lock`` on
PostgreSQL, the single ``BEGIN IMMEDIATE`` writer on SQLite); see ``refs``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from rk.core.api.keys import rendition_originals
from rk.server.platform.db.sql_rows import database, engine_type, rows
from rk.server.platform.db.tables import MediaClaim
from rk.server.platform.db.write_transactions import write_transaction

LIVE_CLAIM = (
    "SELECT 1 FROM media_claims AS c JOIN ingest_jobs AS j ON j.id = c.job_id"
    " WHERE c.key = {} AND j.status = 'processing' AND c.job_id <> {} LIMIT 1"
)
IMAGE_REF = "SELECT 1 FROM images WHERE (key = {} OR thumb_key = {})"
RENDITION_REF = "SELECT 1 FROM images WHERE key IN ({}, {})"
"""A rendition is used by every image of its original (``rendition_originals``)."""
LIVE_ARTICLE = " AND article_id IN (SELECT id FROM articles WHERE deleted_at = 0)"
CLAIM_SQLITE = (
    "INSERT INTO media_claims (key, job_id, claimed_at)"
    " SELECT j.value, ?, ? FROM json_each(?) AS j"
    " WHERE NOT EXISTS (SELECT 1 FROM media_claims AS c WHERE c.job_id = ? AND c.key = j.value)"
)
LOCK_PG = (
    "SELECT pg_advisory_xact_lock(l)"
    " FROM unnest($1::bigint[]) WITH ORDINALITY AS t(l, n) ORDER BY n"
)
CLAIM_PG = (
    "INSERT INTO media_claims (key, job_id, claimed_at)"
    " SELECT k, $2, $3 FROM unnest($1::text[]) AS k"
    " WHERE NOT EXISTS (SELECT 1 FROM media_claims AS c WHERE c.job_id = $2 AND c.key = k)"
)
DEAD_CLAIMS = (
    "DELETE FROM media_claims WHERE job_id NOT IN"
    " (SELECT id FROM ingest_jobs WHERE status = 'processing')"
)


def lock_id(key: str) -> int:
    """A signed 64-bit advisory-lock id for ``key``."""
    return int.from_bytes(hashlib.sha1(f"rk-media:{key}".encode()).digest()[:8], signed=True)


@asynccontextmanager
async def key_lock(keys: Iterable[str]) -> AsyncIterator[None]:
    """A write transaction holding the lock of every key in ``keys`` (sorted: no deadlock)."""
    async with write_transaction():
        if engine_type() == "postgres":
            for key in sorted(set(keys)):
                await rows("SELECT pg_advisory_xact_lock({})", lock_id(key))
        yield


async def insert_claims(job_id: int, keys: list[str], now: int) -> None:
    """Record job ``job_id``'s claim on each of ``keys`` (sorted), in one statement.

    On PostgreSQL every key's lock is taken first, in the same transaction; on SQLite the
    single statement is the writer's, like ``BEGIN IMMEDIATE``.
    """
    db = database()
    if db.engine == "sqlite":
        await db.execute(CLAIM_SQLITE, job_id, now, json.dumps(keys), job_id)
        return
    async with db.transaction() as tx:
        await tx.execute(LOCK_PG, [lock_id(k) for k in keys])
        await tx.execute(CLAIM_PG, keys, job_id, now)


async def delete_claims_of(job_id: int) -> None:
    """Drop every claim of ``job_id``."""
    await MediaClaim.delete().where(MediaClaim.job_id == job_id)


async def drop_dead_claims() -> None:
    """Drop the claims of jobs that are not running (left by a killed worker)."""
    await rows(DEAD_CLAIMS)


async def image_uses_key(key: str, *, live_only: bool, skip_article: int) -> bool:
    """Whether an image row uses ``key`` (of a live article only, if ``live_only``), not
    counting the images of article ``skip_article``; a rendition, through its original."""
    originals = rendition_originals(key)
    sql = IMAGE_REF if originals is None else RENDITION_REF
    args: list[Any] = [key, key] if originals is None else list(originals)
    if skip_article:
        sql += " AND article_id <> {}"
        args.append(skip_article)
    if live_only:
        sql += LIVE_ARTICLE
    return bool(await rows(sql + " LIMIT 1", *args))


async def claimed_by_another_job(key: str, job_id: int) -> bool:
    """Whether a running job other than ``job_id`` claims ``key``."""
    return bool(await rows(LIVE_CLAIM, key, job_id))
