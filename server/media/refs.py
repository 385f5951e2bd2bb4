"""Who references an object, settled in the database: image rows and running jobs' claims.

An image row references its original and its thumbnail, and every rung of its original's
rendition ladder (``r/<width>/<sha1>.webp``): a rendition lives exactly as long as an
image of its original does.

A running ingest job *claims* a key (a ``media_claims`` row) before it looks at or writes
the object, so an object it is about to reference is never deleted under it. A claim is
live while its job is ``processing``; claims of finished or waiting jobs are dead.

Claiming and deleting take the same per-key lock (``pg_advisory_xact_lock`` on
PostgreSQL, the single ``BEGIN IMMEDIATE`` writer on SQLite), and a delete re-checks the
references inside it: either the claim commits first and the delete sees it, or the
delete finishes first and the claiming job finds the object missing and writes it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from rk.core.api.storage import Storage
from rk.server.media.repository_refs import (
    claimed_by_another_job,
    delete_claims_of,
    image_uses_key,
    insert_claims,
    key_lock,
)
from rk.server.platform.http.errors import one_line

log = logging.getLogger(__name__)


async def claim(job_id: int, keys: Iterable[str]) -> None:
    """Record that job ``job_id`` is about to reference ``keys``: one statement for all of them.

    On PostgreSQL it takes every key's lock first (sorted, as ``key_lock``), in the same
    transaction; on SQLite the single statement is the writer's, like ``BEGIN IMMEDIATE``.
    """
    wanted = sorted({k for k in keys if k})
    if not job_id or not wanted:
        return
    await insert_claims(job_id, wanted, int(time.time()))


async def release(job_id: int) -> None:
    """Drop every claim of ``job_id`` (its images are written, or it gave up)."""
    if job_id:
        await delete_claims_of(job_id)


async def referenced(
    key: str, *, job_id: int = 0, live_only: bool = False, skip_article: int = 0
) -> bool:
    """True when an image row uses ``key`` or a running job other than ``job_id`` claims it.

    ``live_only`` counts only images of articles that are not deleted; ``skip_article``
    ignores that article's images (the one being cleaned up).
    """
    if await image_uses_key(key, live_only=live_only, skip_article=skip_article):
        return True
    return await claimed_by_another_job(key, job_id)


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
