"""A real ``rk serve-backend`` on PostgreSQL through an outage: its log has one outage line
and no traceback (asyncpg's retries of the pool floor included), and SIGTERM after the
outage is a clean shutdown with exit code 0."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import httpx
import pytest

from tests.integration.spider.procs import Backend
from tests.support.pg import refusing_connections

pytestmark = pytest.mark.postgres


async def test_an_outage_logs_one_line_and_a_stop_after_it_is_clean(
    tmp_path: Path, pg_dsn: str
) -> None:
    backend = Backend(tmp_path, pg_dsn)
    backend.start()
    try:
        async with httpx.AsyncClient(base_url=backend.url, timeout=30) as client:
            assert (await client.get("/api/shows")).status_code == 200
            await backend.wait_for(r"ingest workers: 2 \(poll every [0-9.]+ s, woken by new")
            async with refusing_connections(pg_dsn):
                for _ in range(6):
                    answer = await client.get("/api/shows")
                    assert answer.status_code == 503
                    await asyncio.sleep(0.5)
            for _ in range(100):
                if (await client.get("/api/shows")).status_code == 200:
                    break
                await asyncio.sleep(0.1)
            assert (await client.get("/api/shows")).status_code == 200
        backend.send(signal.SIGTERM)
        code = await backend.wait()
    finally:
        backend.stop()
    log = backend.log()
    assert log.count("database unavailable, answering 503") == 1, log
    assert "Traceback" not in log, log
    assert "shutdown failed" not in log, log
    assert code == 0, log
