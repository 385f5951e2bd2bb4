"""rk.core: the plugin API and everything a spider, plugin or backend shares.

Plugin authors import from here: ``from rk.core import hookimpl``.
"""

from __future__ import annotations

from rk.core.embedders import Embedder, EmbedResult
from rk.core.errors import RkError, ShowSkipped, SourceError
from rk.core.hookspecs import hookimpl, hookspec
from rk.core.sources import BrandTarget, ShowSummary, Source
from rk.core.storage import ObjectInfo, Storage, StorageContext
from rk.core.wire import BrandRef, ImageRef, Look, ShowIngest

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
    "Storage",
    "StorageContext",
    "hookimpl",
    "hookspec",
]
