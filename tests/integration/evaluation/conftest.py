"""Fixtures of the ``rk eval`` tests: each engine and vector index a search can run on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.vectors.conftest import pgvector_admin
from tests.support.pg import fresh_database
from tests.support.pgvector import fresh_pgvector_database

__all__ = ["pgvector_admin"]


@pytest.fixture(params=["sqlite", "postgresql", "pgvector"])
def search_dsn(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of each kind: SQLite and PostgreSQL (the exact index), and
    PostgreSQL with pgvector (``vectors.index: auto`` picks HNSW there)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'rk.sqlite3'}"
    elif request.param == "postgresql":
        with fresh_database() as dsn:
            yield dsn
    else:
        with fresh_pgvector_database(request.getfixturevalue("pgvector_admin")) as dsn:
            yield dsn
