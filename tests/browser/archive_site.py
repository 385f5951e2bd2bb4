"""A served archive for browser tests: ``rk serve-backend`` on SQLite with the tiny CLIP,
the archive a test makes written into its storage, every picture's vector placed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.platform.db.database import Database
from tests.integration.public.archive import Archive
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.spider.procs import Backend
from tests.models.samples import TINY_CLIP
from tests.support.served import served_archive


@contextmanager
def archive_backend(
    root: Path, fill: Callable[[Storage], Awaitable[Archive]]
) -> Iterator[tuple[Backend, Archive]]:
    """The backend under ``root`` and the archive ``fill`` wrote; stopped on exit."""

    async def embedded(storage: Storage, pm: RkPluginManager, _: Database) -> Archive:
        archive = await fill(storage)
        await embed_archive(archive, pm)
        await wait_placed()
        return archive

    with served_archive(root, embedded, vision={"model": str(TINY_CLIP)}) as served:
        yield served
