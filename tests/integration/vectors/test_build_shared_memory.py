"""A parallel HNSW build on a server short of shared memory (Docker's 64 MB ``/dev/shm``) is
done again serially: the index ends valid, and one warning says how to give it room.

The server is one of this module's own: its dynamic shared memory lives in files under
``pg_dynshmem`` (``dynamic_shared_memory_type = mmap``), on a tmpfs of ``SHM_MB``, and it
builds in parallel whatever the table's size, so a build in 64 MiB needs far more shared
memory than there is.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import numpy as np
import pytest

from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.sql_rows import rows
from rk.server.similarity.vectors.pg_spaces import spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex
from tests.integration.vectors.helpers import MODEL, brute, bulk, clustered
from tests.support.pgvector import fresh_pgvector_database, pgvector_server
from tests.support.skips import skip_or_fail

SHM_MB = 4
SETTINGS = {
    "dynamic_shared_memory_type": "mmap",
    "max_parallel_maintenance_workers": "8",
    "min_parallel_table_scan_size": "0",
}


async def _configure(dsn: str) -> None:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        for name, value in SETTINGS.items():
            await conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
    finally:
        await conn.close()


def _mount(target: Path) -> None:
    """A tmpfs of ``SHM_MB`` over ``target``, owned as ``target`` is (the server's user)."""
    if os.geteuid() != 0:
        skip_or_fail("mounting a small tmpfs over pg_dynshmem needs root")
    owner = target.stat()
    done = subprocess.run(
        [
            "mount",
            "-t",
            "tmpfs",
            "-o",
            f"size={SHM_MB}m,mode=0700,uid={owner.st_uid},gid={owner.st_gid}",
            "tmpfs",
            str(target),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        skip_or_fail(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")


@pytest.fixture(scope="module")
def short_admin() -> Iterator[str]:
    """A PostgreSQL 16 + pgvector server whose dynamic shared memory has ``SHM_MB``."""
    root = Path(tempfile.mkdtemp(prefix="rk-pgshm-"))
    data = root / "data"
    shm = data / "pg_dynshmem"
    mounted = False
    try:
        with pgvector_server(data) as dsn:
            asyncio.run(_configure(dsn))  # takes effect at the next start
        _mount(shm)
        mounted = True
        with pgvector_server(data) as dsn:
            yield dsn
    finally:
        if mounted:
            subprocess.run(["umount", str(shm)], check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def short_dsn(short_admin: str) -> Iterator[str]:
    with fresh_pgvector_database(short_admin) as dsn:
        yield dsn


async def _indexes(table: str) -> list[dict[str, object]]:
    return await rows(
        "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c"
        " ON c.oid = i.indexrelid WHERE i.indrelid = {}::regclass ORDER BY c.relname",
        table,
    )


async def test_a_build_short_of_shared_memory_is_done_again_serially(
    short_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    await migrate(short_dsn)
    engine = await connect(short_dsn, pool_size=1)  # one connection: the build's settings seen
    rng = np.random.default_rng(21)
    try:
        [found] = await rows("SELECT current_setting('dynamic_shared_memory_type') AS t")
        assert found["t"] == "mmap"
        await bulk(rng, 2000)
        # ef_search 1000 looks at half of the 2,000: the built index must answer exactly
        index = PgvectorIndex(VectorSettings(build_memory_mb=64, ef_search=1000))
        for _ in ("create", "rebuild (REINDEX, which leaves a _ccnew copy)"):
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="rk.server.similarity.vectors"):
                assert await index.reindex(MODEL) == 2000
            [space] = await spaces(MODEL)
            assert space.ready
            assert await _indexes(space.table) == [
                {"relname": f"{space.table}_hnsw", "indisvalid": True},
                {"relname": f"{space.table}_pkey", "indisvalid": True},
            ]
            [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
            assert "short of shared memory" in line
            assert "/dev/shm" in line
            assert "--shm-size" in line
        [setting] = await rows("SHOW max_parallel_maintenance_workers")
        assert setting["max_parallel_maintenance_workers"] == "8"  # the build's session reset
        [query] = clustered(rng, 1)
        got = await index.search(MODEL, query, 10)
        assert [i for i, _ in got] == [i for i, _ in await brute(query, 10)]
    finally:
        await close(engine)
