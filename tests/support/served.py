"""A served archive for browser tests: ``rk serve-backend`` on SQLite under a folder, with
what a test writes into its database and file storage before the first page opens."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager, new_plugin_manager
from rk.core.api.storage import Storage, StorageContext
from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from tests.integration.spider.procs import Backend

T = TypeVar("T")

Fill = Callable[[Storage, RkPluginManager, Database], Awaitable[T]]
"""Writes a test's archive: the backend's storage, a plugin manager, its database (bound)."""


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """``asyncio.run(make())`` on a thread of its own (this thread's loop is Playwright's)."""
    box: dict[str, T] = {}
    errors: list[BaseException] = []

    async def call() -> T:
        return await make()

    def target() -> None:
        try:
            box["value"] = asyncio.run(call())
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target, name="run-async")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return box["value"]


@contextmanager
def served_archive(root: Path, fill: Fill[T], **settings: Any) -> Iterator[tuple[Backend, T]]:
    """The backend under ``root`` (``settings`` as ``Backend`` takes them) and what ``fill``
    made while connected to its database; stopped on exit."""
    dsn = f"sqlite:///{root / 'data' / 'rk.sqlite3'}"
    backend = Backend(root, dsn, **settings).start()

    async def filled() -> T:
        engine = await connect(dsn)
        try:
            media = f"file://{root / 'data' / 'media'}"
            pm = new_plugin_manager()
            storage = open_storage(media, StorageContext(backend_url=backend.url), pm)
            return await fill(storage, pm, engine)
        finally:
            await close(engine)

    try:
        yield backend, run_async(filled)
    finally:
        backend.stop()
