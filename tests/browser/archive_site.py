"""A served archive for browser tests: ``rk serve-backend`` on SQLite with the tiny CLIP,
the archive a test makes written into its storage, every picture's vector placed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.storage import Storage, StorageContext
from rk.server.platform.db.engine import close, connect
from tests.browser.conftest import run_async
from tests.integration.public.archive import Archive
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.spider.procs import Backend
from tests.models.samples import TINY_CLIP


@contextmanager
def archive_backend(
    root: Path, fill: Callable[[Storage], Awaitable[Archive]]
) -> Iterator[tuple[Backend, Archive]]:
    """The backend under ``root`` and the archive ``fill`` wrote; stopped on exit."""
    dsn = f"sqlite:///{root / 'data' / 'rk.sqlite3'}"
    backend = Backend(root, dsn, vision={"model": str(TINY_CLIP)}).start()

    async def seeded() -> Archive:
        engine = await connect(dsn)
        try:
            pm = new_plugin_manager()
            media = f"file://{root / 'data' / 'media'}"
            archive = await fill(open_storage(media, StorageContext(backend_url=backend.url), pm))
            await embed_archive(archive, pm)
            await wait_placed()
            return archive
        finally:
            await close(engine)

    try:
        yield backend, run_async(seeded)
    finally:
        backend.stop()
