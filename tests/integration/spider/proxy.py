"""A real HTTP reverse proxy in front of the backend's ``/media`` routes, for fault tests.

The backend hands spiders upload URLs under ``server.public_url``; pointing that at this
proxy lets a test count every PUT that reaches storage and make chosen PUTs fail the way
a flaky network does (the connection is dropped before any answer), without touching the
backend itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import httpx

UPLOAD_PREFIX = "/media/upload/"


class MediaProxy:
    """Forwards every request to ``target``; drops PUTs whose key is in ``drop_keys``."""

    def __init__(self, port: int) -> None:
        self.target = ""
        self.drop_keys: set[str] = set()
        self.puts: list[str] = []
        self.dropped: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._http = httpx.Client(timeout=30)

    def start(self) -> MediaProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._http.close()

    def _forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> httpx.Response:
        keep = {k: v for k, v in headers.items() if k.lower() not in {"host", "connection"}}
        return self._http.request(method, self.target + path, headers=keep, content=body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                key = urlsplit(self.path).path.removeprefix(UPLOAD_PREFIX)
                if self.command == "PUT":
                    with proxy._lock:
                        proxy.puts.append(key)
                        drop = key in proxy.drop_keys
                        if drop:
                            proxy.dropped.append(key)
                    if drop:
                        self.close_connection = True
                        return
                answer = proxy._forward(self.command, self.path, dict(self.headers), body)
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in {"content-length", "transfer-encoding", "connection"}:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_PUT = do_POST = _relay

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: tests read ``puts`` and ``dropped``."""

        return Handler


@contextmanager
def serve_proxy(port: int) -> Iterator[MediaProxy]:
    """A started proxy on ``port`` (its target is set once the backend's port is known)."""
    proxy = MediaProxy(port).start()
    try:
        yield proxy
    finally:
        proxy.stop()
