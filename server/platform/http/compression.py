"""Compressed answers: pages, JSON, CSS and JavaScript go out gzip-encoded to clients that
accept it.

Litestar's compression middleware encodes any answer a handler makes of ``MINIMUM_SIZE``
bytes or more, and adds ``Vary: Accept-Encoding``. Images are left alone: ``/media`` and the
console's media route serve JPEG and WebP, which are compressed already, and so are the web
fonts. A page's ETag names the page's bytes whatever the encoding, so a revalidation
(``If-None-Match``) is answered 304 whichever encoding the client took it in, and the empty
304 is never encoded. The site's page cache sends its answers before any handler runs, so it
keeps each one gzipped once (``gzipped``) and sends that to clients that accept it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from litestar.config.compression import CompressionConfig
from litestar.middleware.compression.gzip_facade import GzipCompression

MINIMUM_SIZE = 500
"""Answers smaller than this go out as they are: the encoding would save next to nothing."""
GZIP_LEVEL = 6
"""zlib's default: level 9 saved 0.1 % of a page's bytes for up to twice the time."""
ALREADY_COMPRESSED = [r"^/media/", r"^/admin/media/", r"\.woff2$", r"^/admin/internal/"]
"""Paths left as they are: bodies in compressed formats already (images, web fonts), and the
spiders' signed internal API, machine-to-machine JSON on the operator's own network where
encoding would spend backend CPU on every claim and batch for next to no transfer saved."""
VARY = (b"vary", b"Accept-Encoding")
GZIP_ENCODING = (b"content-encoding", b"gzip")
CONFIG = CompressionConfig(
    backend="gzip",
    minimum_size=MINIMUM_SIZE,
    gzip_compress_level=GZIP_LEVEL,
    exclude=ALREADY_COMPRESSED,
)
"""The app's compression: gzip for every client that accepts it, but images, fonts and the
internal API."""


def gzipped(body: bytes) -> bytes | None:
    """``body`` gzip-encoded by the middleware's own encoder (the same bytes but for the time
    in the gzip header), None when the middleware would send it as it is."""
    if len(body) < MINIMUM_SIZE:
        return None
    out = io.BytesIO()
    encoder = GzipCompression(buffer=out, compression_encoding="gzip", config=CONFIG)
    encoder.write(body)
    encoder.close()
    return out.getvalue()


def accepts_gzip(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request's raw headers accept gzip (as the middleware reads them)."""
    return any(name == b"accept-encoding" and b"gzip" in value for name, value in headers)
