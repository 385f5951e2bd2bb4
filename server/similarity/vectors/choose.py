"""Which vector index a process uses: ``vectors.index``, ``auto`` meaning pgvector on
PostgreSQL and exact on SQLite; an index that cannot serve the database is replaced by the
exact one, with one warning line saying what to install."""

from __future__ import annotations

import logging

import pluggy

from rk.core.api.errors import ConfigError, UnknownPlugin
from rk.core.api.lookups import vector_index_registry
from rk.core.api.vector_indexes import VectorIndex
from rk.core.config import VectorSettings
from rk.server.platform.db.sql_rows import engine

log = logging.getLogger("rk.server")

FALLBACK = "exact"


def scheme() -> str:
    """The database scheme the tables are bound to, as index ``schemes`` name it."""
    return "sqlite" if engine().engine_type == "sqlite" else "postgresql"


def wanted_name(settings: VectorSettings) -> str:
    """The index ``vectors.index`` asks for on the bound database (``auto`` resolved)."""
    if settings.index != "auto":
        return settings.index
    return "pgvector" if scheme() == "postgresql" else FALLBACK


def index_class(settings: VectorSettings, pm: pluggy.PluginManager) -> type[VectorIndex]:
    """The class of the index ``vectors.index`` names; ConfigError when none has that name."""
    try:
        return vector_index_registry(pm).get(wanted_name(settings))
    except UnknownPlugin as exc:
        raise ConfigError(f"vectors.index: {exc}") from None


async def open_vector_index(settings: VectorSettings, pm: pluggy.PluginManager) -> VectorIndex:
    """The index for the bound database, opened; falls back to ``exact`` with a warning."""
    registry = vector_index_registry(pm)
    on = scheme()
    wanted = wanted_name(settings)
    cls = index_class(settings, pm)
    problem = None if on in cls.schemes else f"index {wanted!r} cannot serve {on}"
    index = cls(settings) if problem is None else None
    if index is not None:
        problem = await index.open()
    if index is not None and problem is None:
        log.info("vectors: %s index", wanted)
        return index
    log.warning("vectors: %s; using the exact index", problem)
    if index is not None:
        await index.close()
    fallback = registry.get(FALLBACK)(settings)
    await fallback.open()
    return fallback
