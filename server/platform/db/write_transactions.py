"""Write transactions shared by ingest and the media services: one writer on SQLite."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from piccolo.engine.sqlite import SQLiteEngine, TransactionType
from piccolo.table import Table


def write_transaction(table: type[Table]) -> AbstractAsyncContextManager[Any]:
    """A transaction on ``table``'s engine; on SQLite ``BEGIN IMMEDIATE`` (one writer)."""
    engine = table._meta.db
    if isinstance(engine, SQLiteEngine):
        return engine.transaction(transaction_type=TransactionType.immediate)
    return engine.transaction()
