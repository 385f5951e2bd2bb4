"""Fixtures of the spider end-to-end tests: the local site, the database, rk processes."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from rk.core.config import QueueSettings
from rk.server.brands.management import add_brand
from rk.server.crawl.tasks import CrawlTasks
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from tests.integration.spider.photos import PhotoSite, serve_photo_site
from tests.integration.spider.procs import Backend, Proc, spider, spider_config

SECRET = "spider-e2e-secret"


class E2E:
    """One test's world: a database, the local site, and the rk processes it started."""

    def __init__(self, root: Path, dsn: str, site: PhotoSite) -> None:
        self.root = root
        self.dsn = dsn
        self.site = site
        self.procs: list[Proc] = []

    @property
    def allow(self) -> list[str]:
        """The site's ``host:port``: the only private address a backend here may fetch from."""
        return [self.site.base_url.split("//", 1)[1].split("/", 1)[0]]

    def backend(
        self, *, secret: str | None = SECRET, sites: Sequence[str] = (), **settings: Any
    ) -> Backend:
        """A started backend; ``secret=None`` lets it generate (and print) its own.

        It may fetch from the photo site and from ``sites`` (base URLs of other local sites).
        """
        if secret is not None:
            settings.setdefault("ingest", {})["secret"] = secret
        allow = [*self.allow, *(site.split("//", 1)[1].split("/", 1)[0] for site in sites)]
        backend = Backend(self.root / "backend", self.dsn, allow, **settings)
        self.procs.append(backend)
        return backend.start()

    def spider(
        self, name: str, backend: Backend, *options: str, secret: str = SECRET, **settings: Any
    ) -> Proc:
        """A started ``rk spider serve --plugin vogue`` against ``backend``."""
        config = spider_config(
            self.root, name, backend.endpoint, secret, self.site.base_url, **settings
        )
        proc = spider(self.root, name, config, *options)
        self.procs.append(proc)
        return proc.start()

    async def queue(self, brand: str, max_shows: int = 0, priority: int = 0) -> tuple[int, int]:
        """Add the brand (if new) and queue a crawl of it, as ``rk crawl add`` does: ids."""
        info, _ = await add_brand(brand)
        tasks = await CrawlTasks.open(self.dsn, QueueSettings())
        try:
            return info.id, await tasks.add_task(info.id, max_shows, priority, "vogue")
        finally:
            await tasks.close()

    def stop(self) -> None:
        """SIGTERM every process still running at once, then wait for each."""
        for proc in self.procs:
            if proc.alive():
                proc.send(signal.SIGTERM)
        for proc in reversed(self.procs):
            proc.stop()


@pytest.fixture
def site() -> Iterator[PhotoSite]:
    """The synthetic Vogue site with a distinct JPEG behind every photo."""
    with serve_photo_site() as server:
        yield server


async def _world(root: Path, dsn: str, site: PhotoSite) -> AsyncIterator[E2E]:
    await migrate(dsn)
    engine = await connect(dsn)
    world = E2E(root, dsn, site)
    try:
        yield world
    finally:
        world.stop()
        await close(engine)


@pytest.fixture
async def e2e(tmp_path: Path, any_dsn: str, site: PhotoSite) -> AsyncIterator[E2E]:
    """A world on each database engine in turn (SQLite, PostgreSQL)."""
    async for world in _world(tmp_path, any_dsn, site):
        yield world


@pytest.fixture
async def e2e_sqlite(tmp_path: Path, sqlite_dsn: str, site: PhotoSite) -> AsyncIterator[E2E]:
    """A world on SQLite only, for cases where the database engine plays no part."""
    async for world in _world(tmp_path, sqlite_dsn, site):
        yield world
