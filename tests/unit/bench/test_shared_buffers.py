"""The benches' ``--shared-buffers``: the private server is restarted once with the size
asked for, left alone when it already has it, and a malformed size is refused."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

import asyncpg
import pytest

from bench.vector_data import set_shared_buffers
from tests.support.pgvector import pgvector_server

pytestmark = pytest.mark.slow


async def shown(dsn: str) -> str:
    conn = await asyncpg.connect(dsn)
    try:
        return str(await conn.fetchval("SHOW shared_buffers"))
    finally:
        await conn.close()


def test_the_server_restarts_once_with_the_size_asked_for(tmp_path: Path) -> None:
    root = tmp_path / "pg"
    with pgvector_server(root) as admin:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver

            server = pgserver.get_server(root)
        assert asyncio.run(shown(admin)) == "128MB"
        before = (root / "postmaster.pid").read_text().split()[0]
        set_shared_buffers(server, root, "64MB")
        assert asyncio.run(shown(admin)) == "64MB"
        restarted = (root / "postmaster.pid").read_text().split()[0]
        assert restarted != before
        set_shared_buffers(server, root, "64MB")
        assert (root / "postmaster.pid").read_text().split()[0] == restarted
        with pytest.raises(ValueError, match="shared_buffers must look like 128MB or 1GB"):
            set_shared_buffers(server, root, "64MB'; DROP DATABASE x; --")
