"""Who references an object, settled in the database: image rows and running jobs' claims.

A running ingest job *claims* a key (a ``media_claims`` row) before it looks at or writes
the object, so an object it is about to reference is never deleted under it. A claim is
live while its job is ``processing``; claims of finished or waiting jobs are dead.

Claiming and deleting take the same per-key lock (``pg_advisory_xact_lock`` on
PostgreSQL, the single ``BEGIN IMMEDIATE`` writer on SQLite), and a delete re-checks the
references inside it: either the claim commits first and the delete sees it, or the
delete finishes first and the claiming job finds the object missing and writes it again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from piccolo.querystring import QueryString

from rk.core.storage import Storage
from rk.server.platform.db.engine import database_of
from rk.server.platform.db.tables import Image, MediaClaim
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.platform.http.errors import one_line

log = logging.getLogger(__name__)

LIVE_CLAIM = (
    "SELECT 1 FROM media_claims AS c JOIN ingest_jobs AS j ON j.id = c.job_id"
    " WHERE c.key = {} AND j.status = 'processing' AND c.job_id <> {} LIMIT 1"
)
IMAGE_REF = "SELECT 1 FROM images WHERE (key = {} OR thumb_key = {})"
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


async def _run(sql: str, *args: Any) -> list[dict[str, Any]]:
    return list(await Image._meta.db.run_querystring(QueryString(sql, *args)))


@asynccontextmanager
async def key_lock(keys: Iterable[str]) -> AsyncIterator[None]:
    """A write transaction holding the lock of every key in ``keys`` (sorted: no deadlock)."""
    async with write_transaction(Image):
        if Image._meta.db.engine_type == "postgres":
            for key in sorted(set(keys)):
                await _run("SELECT pg_advisory_xact_lock({})", lock_id(key))
        yield


async def claim(job_id: int, keys: Iterable[str]) -> None:
    """Record that job ``job_id`` is about to reference ``keys``: one statement for all of them.

    On PostgreSQL it takes every key's lock first (sorted, as ``key_lock``), in the same
    transaction; on SQLite the single statement is the writer's, like ``BEGIN IMMEDIATE``.
    """
    wanted = sorted({k for k in keys if k})
    if not job_id or not wanted:
        return
    db = database_of(MediaClaim)
    now = int(time.time())
    if db.engine == "sqlite":
        await db.execute(CLAIM_SQLITE, job_id, now, json.dumps(wanted), job_id)
        return
    async with db.transaction() as tx:
        await tx.execute(LOCK_PG, [lock_id(k) for k in wanted])
        await tx.execute(CLAIM_PG, wanted, job_id, now)


async def release(job_id: int) -> None:
    """Drop every claim of ``job_id`` (its images are written, or it gave up)."""
    if job_id:
        await MediaClaim.delete().where(MediaClaim.job_id == job_id)


async def drop_dead_claims() -> None:
    """Drop the claims of jobs that are not running (left by a killed worker)."""
    await _run(DEAD_CLAIMS)


async def referenced(
    key: str, *, job_id: int = 0, live_only: bool = False, skip_article: int = 0
) -> bool:
    """True when an image row uses ``key`` or a running job other than ``job_id`` claims it.

    ``live_only`` counts only images of articles that are not deleted; ``skip_article``
    ignores that article's images (the one being cleaned up).
    """
    sql = IMAGE_REF
    args: list[Any] = [key, key]
    if skip_article:
        sql += " AND article_id <> {}"
        args.append(skip_article)
    if live_only:
        sql += LIVE_ARTICLE
    if await _run(sql + " LIMIT 1", *args):
        return True
    return bool(await _run(LIVE_CLAIM, key, job_id))


async def delete_if_unreferenced(
    storage: Storage,
    key: str,
    *,
    job_id: int = 0,
    live_only: bool = False,
    skip_article: int = 0,
) -> bool:
    """Delete ``key`` when nothing references it (checked under its lock); True if deleted.

    Storage errors propagate (``OSError``); the lock is held across the delete, so no job
    can claim the key between the check and the delete.
    """
    async with key_lock([key]):
        if await referenced(key, job_id=job_id, live_only=live_only, skip_article=skip_article):
            return False
        await storage.delete(key)
    return True


async def delete_unreferenced(
    storage: Storage, keys: Iterable[str], *, job_id: int = 0
) -> list[str]:
    """Delete each of ``keys`` that nothing but ``job_id`` references; the keys deleted.

    For rollbacks: errors are logged only (an object left behind is swept by ``rk storage
    gc``), so cleanup never hides the error that caused it.
    """
    deleted: list[str] = []
    for key in dict.fromkeys(keys):
        try:
            if await delete_if_unreferenced(storage, key, job_id=job_id):
                deleted.append(key)
        except Exception as exc:  # cleanup must never hide the error that caused it
            log.warning("could not delete %s: %s", key, one_line(str(exc) or repr(exc)))
    return deleted
