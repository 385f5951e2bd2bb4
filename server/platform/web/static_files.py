"""``/static``: the stylesheet, script and icons of every page, served by rk itself.

Closed networks have no CDN, so every asset ships in the package. URLs carry a hash of
the file (``/static/rk.css?v=…``), so browsers may cache them for a year and still see a
new release at once. A name the file system refuses (too long, a NUL) is a 404 like any
missing file, never a 500.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from litestar import Router
from litestar.datastructures import CacheControlHeader
from litestar.file_system import BaseLocalFileSystem
from litestar.static_files import create_static_files_router
from litestar.types import PathType
from litestar.types.file_types import FileInfo

STATIC_DIR = Path(__file__).resolve().parent / "static"
PREFIX = "/static"


@cache
def _version(name: str) -> str:
    try:
        return hashlib.sha1((STATIC_DIR / name).read_bytes()).hexdigest()[:10]
    except OSError:
        return "missing"


def static_url(name: str) -> str:
    """The cache-busting URL of a file in ``static/`` (``/static/rk.css?v=3f2a…``)."""
    return f"{PREFIX}/{name}?v={_version(name)}"


class StaticFileSystem(BaseLocalFileSystem):
    """The local file system, where a path the OS cannot even look up is simply not there."""

    async def info(self, path: PathType, **kwargs: Any) -> FileInfo:
        """The file's info; FileNotFoundError (a 404) for a name the OS refuses."""
        try:
            return await super().info(path, **kwargs)
        except PermissionError:
            raise
        except (OSError, ValueError) as exc:
            raise FileNotFoundError(f"no static file {str(path)!r}") from exc


def static_router() -> Router:
    """The router that serves ``static/`` with a year of caching."""
    return create_static_files_router(
        path=PREFIX,
        directories=[STATIC_DIR],
        file_system=StaticFileSystem(),
        cache_control=CacheControlHeader(public=True, max_age=31536000, immutable=True),
        include_in_schema=False,
    )
