"""rk plugin s4_storage: object storage on obstore for ``s3://``, ``file://`` and ``memory://``."""

from __future__ import annotations

from typing import Any

from rk.core.api.hookspecs import hookimpl


@hookimpl
def rk_register_storages() -> list[type[Any]]:
    """The obstore-backed store; imported here so loading the plugin opens nothing."""
    from rk.plugins.s4_storage.store import ObjectStoreStorage

    return [ObjectStoreStorage]
