"""rk.server.media: stored objects: who may read them (``/media``), who references
them, upload grants for spiders, rendition ladders and their backfill, cleanup jobs and the
storage sweep.
"""

from __future__ import annotations

from rk.server.media.access import published_key
from rk.server.media.cleanup import KIND, MediaCleanup, MediaCleanupService
from rk.server.media.links import console_storage, public_storage
from rk.server.media.refs import claim, delete_if_unreferenced, delete_unreferenced, release
from rk.server.media.renditions import (
    format_widths,
    ladder_stored,
    parse_widths,
    rendition_keys_of,
    store_ladder,
)
from rk.server.media.repository_renditions import recorded_ladder
from rk.server.media.routes import PRIVATE, KeyParam, error_answer, media_routes, serve_object
from rk.server.media.storage_sweep import StorageSweeper
from rk.server.media.thumb_check import image_info, thumbnail_problem
from rk.server.media.upload_grants import grant_many, grant_one

__all__ = [
    "KIND",
    "PRIVATE",
    "KeyParam",
    "MediaCleanup",
    "MediaCleanupService",
    "StorageSweeper",
    "claim",
    "console_storage",
    "delete_if_unreferenced",
    "delete_unreferenced",
    "error_answer",
    "format_widths",
    "grant_many",
    "grant_one",
    "image_info",
    "ladder_stored",
    "media_routes",
    "parse_widths",
    "public_storage",
    "published_key",
    "recorded_ladder",
    "release",
    "rendition_keys_of",
    "serve_object",
    "store_ladder",
    "thumbnail_problem",
]
