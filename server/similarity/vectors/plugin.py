"""Registers the built-in vector indexes through the rk entry-point group."""

from __future__ import annotations

from rk.core import hookimpl


@hookimpl
def rk_register_vector_indexes() -> list[type]:
    """``pgvector`` (HNSW in PostgreSQL) and ``exact`` (in-process matrix)."""
    from rk.server.similarity.vectors.exact import ExactIndex
    from rk.server.similarity.vectors.pgvector import PgvectorIndex

    return [PgvectorIndex, ExactIndex]
