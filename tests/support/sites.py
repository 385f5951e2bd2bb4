"""A real local HTTP server standing in for an external website in tests.

It serves a directory of captured-shape pages over 127.0.0.1 (port 0), replaces ``{{BASE}}``
(this server, ``http://127.0.0.1:PORT``) and ``{{CDN}}`` (the same server under the name
``localhost``, so a page can link a second host) in text files, lets a test override single
paths (status, headers, body, how many times), and records every request it answers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".xml": "application/rss+xml; charset=utf-8",
    ".jpg": "image/jpeg",
}
INDEX_FILES = ("index.html", "index.xml", "index.json")
# The smallest valid JPEG (1×1 white), served for image paths a test routes to it.
TINY_JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b"
    "0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ff"
    "c0000b080001000101011100ffc4001f0000010501010101010100000000000000000102030405060708090a0b"
    "ffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a108"
    "2342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a53545556"
    "5758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9"
    "aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7"
    "f8f9faffda0008010100003f00fbd3ffd9"
)


def render(path: Path, base: str, cdn: str = "") -> str:
    """A site file's text with ``{{BASE}}`` and ``{{CDN}}`` filled in (for parser unit tests)."""
    text = path.read_text(encoding="utf-8")
    return text.replace("{{BASE}}", base).replace("{{CDN}}", cdn or base)


@dataclass
class Route:
    """An override for one path (``*`` at the end: a prefix) and optionally some query values."""

    path: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    file: str | None = None
    query: dict[str, str] = field(default_factory=dict)
    times: int | None = None

    def matches(self, path: str, query: Mapping[str, str]) -> bool:
        """Whether this route answers ``path`` with ``query`` (and still has uses left)."""
        if self.times is not None and self.times <= 0:
            return False
        hit = path.startswith(self.path[:-1]) if self.path.endswith("*") else path == self.path
        return hit and all(query.get(k) == v for k, v in self.query.items())


@dataclass(frozen=True)
class Hit:
    """One request the server answered."""

    method: str
    path: str
    query: dict[str, str]
    status: int


class SiteServer:
    """Serves ``root`` on 127.0.0.1 with per-path overrides; ``hits`` records every request."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.routes: list[Route] = []
        self.hits: list[Hit] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.cdn_url = f"http://localhost:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def route(
        self,
        path: str,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        file: str | None = None,
        query: Mapping[str, str] | None = None,
        times: int | None = None,
    ) -> Route:
        """Add an override; the newest matching route wins. See ``Route`` for the fields."""
        new = Route(path, status, dict(headers or {}), body, file, dict(query or {}), times)
        with self._lock:
            self.routes.insert(0, new)
        return new

    def paths(self, prefix: str = "/") -> list[str]:
        """Paths requested so far that start with ``prefix``, in order."""
        return [hit.path for hit in self.hits if hit.path.startswith(prefix)]

    def start(self) -> SiteServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """Status, headers and body for one GET."""
        with self._lock:
            route = next((r for r in self.routes if r.matches(path, query)), None)
            if route is not None and route.times is not None:
                route.times -= 1
        if route is not None and route.file is None and route.body is not None:
            return route.status, dict(route.headers), route.body
        found = self.root / route.file if route and route.file else self._find(path)
        if found is None:
            status = route.status if route else 404
            return status, {**(route.headers if route else {})}, b"not found"
        content_type = CONTENT_TYPES.get(found.suffix, "application/octet-stream")
        body = found.read_bytes()
        if content_type.startswith(("text/", "application/")):
            text = body.decode("utf-8").replace("{{BASE}}", self.base_url)
            body = text.replace("{{CDN}}", self.cdn_url).encode("utf-8")
        headers = {"Content-Type": content_type}
        if route is not None:
            headers.update(route.headers)
            return route.status, headers, body
        return 200, headers, body

    def _find(self, path: str) -> Path | None:
        """The file for a URL path: itself, an index file of the directory, or ``path.html``.

        A page may have sub-pages (a show and its ``…/slideshow/collection``): ``path.html``
        answers when the directory ``path`` has no index file.
        """
        relative = path.lstrip("/")
        candidate = (self.root / relative).resolve()
        if not candidate.is_relative_to(self.root.resolve()):
            return None
        if candidate.is_dir():
            index = next((candidate / n for n in INDEX_FILES if (candidate / n).is_file()), None)
            if index is not None:
                return index
        elif candidate.is_file():
            return candidate
        with_suffix = candidate.with_name(candidate.name + ".html")
        return with_suffix if with_suffix.is_file() else None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query, keep_blank_values=True))
                status, headers, body = site.answer(parts.path, query)
                with site._lock:
                    site.hits.append(Hit("GET", parts.path, query, status))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: tests read ``site.hits`` instead of a log."""

        return Handler


WP_REST_POSTS = "/wp-json/wp/v2/posts"
_JSON = {"Content-Type": "application/json; charset=UTF-8"}


def serve_wp_rest(site: SiteServer, *, total_pages: bool = True) -> None:
    """Answer ``/wp-json/wp/v2/posts?page=N`` from ``wp-json/posts-N.json`` like WordPress.

    Each page carries ``X-WP-Total`` (and ``X-WP-TotalPages`` unless ``total_pages`` is
    False); the page after the last answers 400 ``rest_post_invalid_page_number``.
    """
    pages = sorted((site.root / "wp-json").glob("posts-*.json"))
    total = sum(len(json.loads(page.read_text(encoding="utf-8"))) for page in pages)
    for number, page in enumerate(pages, 1):
        headers = {**_JSON, "X-WP-Total": str(total)}
        if total_pages:
            headers["X-WP-TotalPages"] = str(len(pages))
        site.route(
            WP_REST_POSTS, query={"page": str(number)}, file=f"wp-json/{page.name}", headers=headers
        )
    past_end = b'{"code":"rest_post_invalid_page_number","data":{"status":400}}'
    site.route(
        WP_REST_POSTS, query={"page": str(len(pages) + 1)}, status=400, body=past_end, headers=_JSON
    )


@contextmanager
def serve_site(root: Path) -> Iterator[SiteServer]:
    """A started SiteServer for ``root``, stopped on exit."""
    site = SiteServer(root).start()
    try:
        yield site
    finally:
        site.stop()
