"""The registry's side of each hook family: what plugins registered, looked up by name or scheme.

The interface modules only define what a plugin provides; looking one up goes through the plugin
manager, so it lives here and the interfaces import no plugin machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar
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

T = TypeVar("T")


@dataclass(frozen=True)
class HookFamily(Generic[T]):
    """One registration hook: the classes its plugins return, keyed by name or scheme."""

    hook: str
    label: str
    keys_of: Callable[[T], Iterable[str]]

    def registry(self, pm: pluggy.PluginManager | None = None) -> Registry[T]:
        """Every class registered through the hook (of ``pm``, else the process's manager)."""
        return registry_of(pm or get_plugin_manager(), self.hook, self.label, self.keys_of)

    def get(self, key: str, pm: pluggy.PluginManager | None = None) -> T:
        """The class registered under ``key``; UnknownPlugin lists the available ones."""
        return self.registry(pm).get(key)


SOURCES: HookFamily[type[Source]] = HookFamily(
    "rk_register_sources", "source", lambda cls: [cls.name]
)
STORAGES: HookFamily[type[Storage]] = HookFamily(
    "rk_register_storages", "storage scheme", lambda cls: cls.schemes
)
EMBEDDERS: HookFamily[type[Embedder]] = HookFamily(
    "rk_register_embedders", "embedder", lambda cls: [cls.name]
)
QUEUES: HookFamily[type[QueueBackend]] = HookFamily(
    "rk_register_queues", "queue backend", lambda cls: cls.schemes
)
VECTOR_INDEXES: HookFamily[type[VectorIndex]] = HookFamily(
    "rk_register_vector_indexes", "vector index", lambda cls: [cls.name]
)

source_registry = SOURCES.registry
get_source = SOURCES.get
get_embedder = EMBEDDERS.get
vector_index_registry = VECTOR_INDEXES.registry
get_vector_index = VECTOR_INDEXES.get


def open_storage(
    url: str, context: StorageContext, pm: pluggy.PluginManager | None = None
) -> Storage:
    """The storage for ``url``, chosen by its scheme."""
    scheme = urlsplit(url).scheme
    if not scheme:
        raise InvalidKey(f"storage URL {url!r} has no scheme (expected e.g. file:// or s3://)")
    return STORAGES.get(scheme, pm)(url, context)


def get_queue_backend(dsn: str, pm: pluggy.PluginManager | None = None) -> type[QueueBackend]:
    """The queue backend class for a database DSN, chosen by its scheme."""
    scheme = dsn.split("://", 1)[0].split("+", 1)[0]
    return QUEUES.get(scheme, pm)
