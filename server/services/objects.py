"""Shared by ingest and media cleanup: write transactions, and deleting unreferenced objects.

An object may be deleted only when no image row points at it (as its key or thumbnail):
content-addressed keys are shared by every image with the same bytes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any

from piccolo.engine.sqlite import SQLiteEngine, TransactionType
from piccolo.table import Table

from rk.core.storage import Storage
from rk.server.db.tables import Article, Image

log = logging.getLogger(__name__)


def write_transaction(table: type[Table]) -> AbstractAsyncContextManager[Any]:
    """A transaction on ``table``'s engine; on SQLite ``BEGIN IMMEDIATE`` (one writer)."""
    engine = table._meta.db
    if isinstance(engine, SQLiteEngine):
        return engine.transaction(transaction_type=TransactionType.immediate)
    return engine.transaction()


async def is_referenced(key: str, *, live_only: bool = False, skip_article: int = 0) -> bool:
    """True when an image row uses ``key``; optionally only images of live other articles."""
    query = Image.select(Image.id).where((Image.key == key) | (Image.thumb_key == key))
    if skip_article:
        query = query.where(Image.article_id != skip_article)
    if live_only:
        live = Article.select(Article.id).where(Article.deleted_at == 0)
        query = query.where(Image.article_id.is_in(live))
    return await query.first() is not None


async def delete_unreferenced(storage: Storage, keys: Iterable[str]) -> list[str]:
    """Delete each key no image row references; the keys deleted. Errors are logged only."""
    deleted: list[str] = []
    for key in dict.fromkeys(keys):
        try:
            if await is_referenced(key):
                continue
            await storage.delete(key)
            deleted.append(key)
        except Exception as exc:  # cleanup must never hide the error that caused it
            log.warning(
                "could not delete %s: %s", key, str(exc).splitlines()[0] if str(exc) else exc
            )
    return deleted
