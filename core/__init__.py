"""rk.core: the plugin API and everything a spider, plugin or backend shares.

Plugin authors import from here: ``from rk.core import hookimpl``.
"""

from __future__ import annotations

from rk.core.api.embedders import Embedder, EmbedResult
from rk.core.api.errors import RkError, ShowSkipped, SourceError, SourceUnavailable, source_error
from rk.core.api.hookspecs import hookimpl, hookspec
from rk.core.api.sources import BrandTarget, ShowSummary, Source
from rk.core.api.storage import ObjectInfo, Storage, StorageContext
from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest

__all__ = [
    "BrandRef",
    "BrandTarget",
    "EmbedResult",
    "Embedder",
    "ImageRef",
    "Look",
    "ObjectInfo",
    "RkError",
    "ShowIngest",
    "ShowSkipped",
    "ShowSummary",
    "Source",
    "SourceError",
    "SourceUnavailable",
    "Storage",
    "StorageContext",
    "hookimpl",
    "hookspec",
    "source_error",
]
