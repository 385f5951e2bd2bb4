"""The registry's side of each hook family: what plugins registered, looked up by name or scheme.

The interface modules only define what a plugin provides; looking one up goes through the plugin
manager, so it lives here and the interfaces import no plugin machinery.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pluggy

from rk.core.api.embedders import Embedder
from rk.core.api.errors import InvalidKey
from rk.core.api.plugins import get_plugin_manager, registry_of
from rk.core.api.queues import QueueBackend
from rk.core.api.registry import Registry
from rk.core.api.sources import Source
from rk.core.api.storage import Storage, StorageContext
from rk.core.api.vector_indexes import VectorIndex


def source_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[Source]]:
    """Every registered source class, by ``name``."""
    return registry_of(
        pm or get_plugin_manager(), "rk_register_sources", "source", lambda cls: [cls.name]
    )


def get_source(name: str, pm: pluggy.PluginManager | None = None) -> type[Source]:
    """The source class called ``name``; UnknownPlugin lists the available ones."""
    return source_registry(pm).get(name)


def storage_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[Storage]]:
    """Every registered storage class, by URL scheme."""
    return registry_of(
        pm or get_plugin_manager(), "rk_register_storages", "storage scheme", lambda c: c.schemes
    )


def open_storage(
    url: str, context: StorageContext, pm: pluggy.PluginManager | None = None
) -> Storage:
    """The storage for ``url``, chosen by its scheme."""
    scheme = urlsplit(url).scheme
    if not scheme:
        raise InvalidKey(f"storage URL {url!r} has no scheme (expected e.g. file:// or s3://)")
    return storage_registry(pm).get(scheme)(url, context)


def embedder_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[Embedder]]:
    """Every registered embedder class, by ``name``."""
    return registry_of(
        pm or get_plugin_manager(), "rk_register_embedders", "embedder", lambda cls: [cls.name]
    )


def get_embedder(name: str, pm: pluggy.PluginManager | None = None) -> type[Embedder]:
    """The embedder class called ``name``; UnknownPlugin lists the available ones."""
    return embedder_registry(pm).get(name)


def queue_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[QueueBackend]]:
    """Every registered queue backend class, by database scheme."""
    return registry_of(
        pm or get_plugin_manager(), "rk_register_queues", "queue backend", lambda c: c.schemes
    )


def get_queue_backend(dsn: str, pm: pluggy.PluginManager | None = None) -> type[QueueBackend]:
    """The queue backend class for a database DSN, chosen by its scheme."""
    scheme = dsn.split("://", 1)[0].split("+", 1)[0]
    return queue_registry(pm).get(scheme)


def vector_index_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[VectorIndex]]:
    """Every registered vector-index class, by ``name``."""
    return registry_of(
        pm or get_plugin_manager(), "rk_register_vector_indexes", "vector index", lambda c: [c.name]
    )


def get_vector_index(name: str, pm: pluggy.PluginManager | None = None) -> type[VectorIndex]:
    """The vector-index class called ``name``; UnknownPlugin lists the available ones."""
    return vector_index_registry(pm).get(name)
