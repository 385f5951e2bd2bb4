"""One database path per backend process: tables, queue and crawl tasks share one pool.

Under mixed load (ingest jobs on several workers, crawl claims, public API reads) a
PostgreSQL backend never holds more connections than ``server.db_pool_size``; on both
engines the queue and the tables run over the one ``Database`` the app opened.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import msgspec

from rk.server.platform.db.engine import database_of
from rk.server.platform.db.tables import Article
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import backend_settings, show
from tests.integration.server.images import Answer, ImageServer, jpeg

POOL = 4
TASKS = "/admin/internal/crawl/tasks"


async def test_every_part_of_the_backend_shares_one_database(
    tmp_path: Path, start_backend: StartBackend, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    state = backend.app.state
    assert database_of(Article) is state.db
    assert state.queue.db is state.db


async def test_a_postgresql_backend_holds_at_most_its_pool(
    tmp_path: Path, start_backend: StartBackend, images: ImageServer, pg_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=pg_dsn, workers=3, allow=images.allow)
    settings = msgspec.structs.replace(
        settings, server=msgspec.structs.replace(settings.server, db_pool_size=POOL)
    )
    backend = await start_backend(settings)
    shows = [
        show(f"ss25/pool-{n}", [images.add(f"/p{n}.jpg", Answer(body=jpeg(40 + n), delay_s=0.3))])
        for n in range(6)
    ]
    watcher = await asyncpg.connect(pg_dsn)
    seen: list[int] = []
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            seen.append(
                await watcher.fetchval(
                    "SELECT COUNT(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            )
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    try:
        job_ids = await asyncio.gather(*(backend.submit(s) for s in shows))
        claims = [
            backend.signed("POST", TASKS, b'{"worker": "w", "source": "vogue"}') for _ in range(20)
        ]
        reads = [backend.client.get("/api/shows") for _ in range(20)]
        answers = await asyncio.gather(*claims, *reads)
        assert {a.status_code for a in answers} <= {200, 204}
        for job_id in job_ids:
            assert (await backend.wait_job(job_id))["outcome"] == "created"
    finally:
        stop.set()
        await sampler
        await watcher.close()
    assert seen
    assert max(seen) <= POOL
