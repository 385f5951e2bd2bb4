"""Rendered public answers kept per process, valid while the change counters stand still.

A public page costs several queries and a template render; most requests ask for a page
nothing has changed since. Each request reads the counters (``services.public_changes``,
moved by database triggers whatever process or tool writes, and for neighbour lists once
per transaction by their writers), and an answer rendered under the same counters is sent
again as it was — same bytes, same ETag. A publish, unpublish,
edit or new neighbour list moves a counter, so the next request renders afresh: nothing is
served stale, across any number of backend processes. The cache is a bounded LRU.
``serve_cached`` sends a still-valid answer to a plain GET before the handler runs, and
before the compression middleware: so each entry keeps its answer gzipped once as well, for
clients that accept it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from litestar import MediaType, Request
from litestar.datastructures import State
from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
)

from rk.server.platform.db.public_changes import Changes, CounterReads
from rk.server.platform.http.compression import GZIP_ENCODING, VARY, accepts_gzip, gzipped
from rk.server.platform.http.session_cookie import carries_session

MAX_ENTRIES = 4096
MAX_BYTES = 128 * 1024 * 1024
MAX_AGE_S = 30
CACHE_CONTROL = f"public, max-age={MAX_AGE_S}"
"""Answers may be kept ``MAX_AGE_S`` by a browser or a CDN, then revalidated (``http_cache``)."""
CONTENT_TYPES = {MediaType.HTML: b"text/html; charset=utf-8", MediaType.JSON: b"application/json"}


def etag_of(body: bytes) -> str:
    """A strong ETag of ``body``."""
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


@dataclass(frozen=True)
class Rendered:
    """One answer as sent: body, media type, its ETag and Last-Modified header ("" = none),
    and the request headers besides the URL it depends on (``Vary``; "" = none).

    Made by ``Rendered.of``: the hash and the date are worked out once per rendering, not
    once per request that is answered from the cache.
    """

    body: bytes
    media_type: str
    etag: str
    last_modified: str
    vary: str = ""

    @classmethod
    def of(cls, body: bytes, media_type: str, last_modified: int = 0, vary: str = "") -> Rendered:
        """``body`` with its ETag; ``last_modified`` in unix seconds, 0 = none."""
        date = formatdate(last_modified, usegmt=True) if last_modified > 0 else ""
        return cls(body, media_type, etag_of(body), date, vary)

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers of a 200 answer, as sent by ``serve_cached``."""
        headers = [
            (b"content-type", CONTENT_TYPES[MediaType(self.media_type)]),
            (b"content-length", str(len(self.body)).encode()),
            (b"etag", self.etag.encode()),
            (b"cache-control", CACHE_CONTROL.encode()),
        ]
        if self.last_modified:
            headers.append((b"last-modified", self.last_modified.encode()))
        if self.vary:
            headers.append((b"vary", self.vary.encode()))
        return headers


@dataclass(frozen=True)
class _Entry:
    valid_for: tuple[int, int]
    rendered: Rendered
    neighbours: bool
    raw_headers: list[tuple[bytes, bytes]]
    gzipped: bytes | None
    gzip_headers: list[tuple[bytes, bytes]]

    @classmethod
    def of(cls, valid_for: tuple[int, int], rendered: Rendered, neighbours: bool) -> _Entry:
        """The entry of ``rendered``, its headers worked out and its body gzipped once."""
        headers = rendered.raw_headers()
        packed = gzipped(rendered.body)
        length = (b"content-length", str(len(packed or b"")).encode())
        packed_headers = [
            length if name == b"content-length" else (name, value) for name, value in headers
        ] + [GZIP_ENCODING, VARY]
        return cls(valid_for, rendered, neighbours, headers, packed, packed_headers)

    @property
    def size(self) -> int:
        """The bytes this entry holds."""
        return len(self.rendered.body) + len(self.gzipped or b"")


class PageCache:
    """A bounded LRU of rendered answers keyed by URL and the counters they were made under."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def get(self, key: str, valid_for: tuple[int, int]) -> Rendered | None:
        """The answer stored for ``key`` under exactly these counters, else None."""
        entry = self._entries.get(key)
        if entry is None or entry.valid_for != valid_for:
            return None
        self._entries.move_to_end(key)
        return entry.rendered

    def get_entry(self, key: str, changes: Changes) -> _Entry | None:
        """The entry for ``key`` if still valid under ``changes``, else None."""
        entry = self._entries.get(key)
        if entry is None or entry.valid_for != valid_under(changes, entry.neighbours):
            return None
        self._entries.move_to_end(key)
        return entry

    def has(self, key: str) -> bool:
        """Whether anything is kept for ``key`` (valid or not)."""
        return key in self._entries

    def put(
        self, key: str, valid_for: tuple[int, int], rendered: Rendered, neighbours: bool = False
    ) -> None:
        """Keep ``rendered`` for ``key``; the least recently used go when over a bound."""
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.size
        entry = self._entries[key] = _Entry.of(valid_for, rendered, neighbours)
        self._bytes += entry.size
        while self._entries and (
            len(self._entries) > self.max_entries or self._bytes > self.max_bytes
        ):
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= dropped.size


def valid_under(changes: Changes, neighbours: bool) -> tuple[int, int]:
    """The counters an answer depends on: content, and neighbour lists when it shows them."""
    return (changes.content, changes.neighbours if neighbours else 0)


def key_of(scope: Scope) -> str:
    """The cache key of a request: its path and query string."""
    return f"{scope['path']}?{scope['query_string'].decode('latin-1')}"


def cache_of(state: State) -> PageCache:
    """The app's page cache (made on first use)."""
    cache = state.get("public_page_cache")
    if not isinstance(cache, PageCache):
        cache = state["public_page_cache"] = PageCache()
    return cache


def counters_of(state: State) -> CounterReads:
    """The app's shared counter reads (made on first use)."""
    reads = state.get("public_counter_reads")
    if not isinstance(reads, CounterReads):
        reads = state["public_counter_reads"] = CounterReads()
    return reads


async def cached(
    request: Request[Any, Any, Any],
    render: Callable[[], Awaitable[Rendered]],
    *,
    neighbours: bool = False,
) -> Rendered:
    """The answer for this URL: from the cache when still valid, else ``render()`` (kept).

    ``neighbours``: the answer shows stored neighbour lists, so it also depends on them.
    The counters are read before rendering: a change committed meanwhile leaves the entry
    under the older counters, where the next request will not use it.
    """
    state = request.app.state
    changes: Changes = await counters_of(state).read()
    valid_for = valid_under(changes, neighbours)
    key = key_of(request.scope)
    cache = cache_of(state)
    hit = cache.get(key, valid_for)
    if hit is not None:
        return hit
    rendered = await render()
    cache.put(key, valid_for, rendered, neighbours)
    return rendered


def serve_cached(app: ASGIApp) -> ASGIApp:
    """Controller middleware: a plain GET whose cached answer is still valid is sent from
    the cache before Litestar parses parameters, calls the handler and builds a Response.

    The counters are read for it as for any request (``cached``), so nothing stale is
    sent. Conditional requests (``If-None-Match``), other methods, misses and requests with
    a console session cookie (a moderator may be shown more) go on to the handler, which
    answers them as before.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state
        cache = cache_of(state)
        key = key_of(scope)
        if (
            scope["type"] == ScopeType.HTTP
            and scope["method"] == "GET"
            and cache.has(key)
            and not _conditional(scope)
            and not carries_session(scope["headers"])
        ):
            entry = cache.get_entry(key, await counters_of(state).read())
            if entry is not None:
                packed = entry.gzipped if accepts_gzip(scope["headers"]) else None
                start: HTTPResponseStartEvent = {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": list(entry.raw_headers if packed is None else entry.gzip_headers),
                }
                body: HTTPResponseBodyEvent = {
                    "type": "http.response.body",
                    "body": entry.rendered.body if packed is None else packed,
                    "more_body": False,
                }
                await send(start)
                await send(body)
                return
        await app(scope, receive, send)

    return middleware


def _conditional(scope: Scope) -> bool:
    return any(name == b"if-none-match" for name, _ in scope["headers"])
