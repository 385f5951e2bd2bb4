"""Write transactions shared by ingest and the media services: one writer on SQLite."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from piccolo.engine.sqlite import SQLiteEngine, TransactionType
from piccolo.table import Table

from rk.server.platform.db.tables import Article


def write_transaction(table: type[Table] = Article) -> AbstractAsyncContextManager[Any]:
    """A transaction on ``table``'s engine; on SQLite ``BEGIN IMMEDIATE`` (one writer).

    Every table shares one engine (``engine.bind``), so the default serves any caller.
    """
    engine = table._meta.db
    if isinstance(engine, SQLiteEngine):
        return engine.transaction(transaction_type=TransactionType.immediate)
    return engine.transaction()
