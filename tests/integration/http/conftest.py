"""A real local HTTP server with scripted answers per path, for the polite client tests.

It stands in for an external website: each path answers from a script (the last reply
repeats), and the server records, by its own clock, when each request arrived, with
which headers, and how many requests were in flight at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass(frozen=True)
class Reply:
    """One scripted answer; ``delay_s`` is slept before answering."""

    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Seen:
    """One request as the server saw it."""

    at: float
    method: str
    headers: dict[str, str]
    body: bytes


class ScriptServer:
    """Scripts, records and serves; ``url(path)`` is where a client reaches a path."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Reply]] = {}
        self.seen: dict[str, list[Seen]] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    def script(self, path: str, *replies: Reply) -> str:
        """Answer ``path`` with ``replies`` in order (the last one repeats); its URL."""
        self.scripts[path] = list(replies)
        return self.url(path)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def hits(self, path: str) -> list[Seen]:
        with self.lock:
            return list(self.seen.get(path, []))

    def next_reply(self, path: str) -> Reply:
        with self.lock:
            script = self.scripts.get(path) or [Reply(404, b"not scripted")]
            return script.pop(0) if len(script) > 1 else script[0]


def _handler(server: ScriptServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.headers.get("Transfer-Encoding") == "chunked":
                body = self._read_chunked()
            with server.lock:
                server.seen.setdefault(self.path, []).append(
                    Seen(time.monotonic(), self.command, dict(self.headers.items()), body)
                )
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            reply = server.next_reply(self.path)
            if reply.delay_s:
                server.stopping.wait(reply.delay_s)
            # Leave the in-flight count before answering: the client cannot finish a
            # request (and start the next) before the answer, so the count never overlaps.
            with server.lock:
                server.in_flight -= 1
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _read_chunked(self) -> bytes:
            out = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()

        do_GET = do_POST = do_PUT = _serve

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the tests read what the server recorded instead."""

    return Handler


@pytest.fixture
def site() -> Iterator[ScriptServer]:
    """A scripted website on 127.0.0.1 (ephemeral port), stopped after the test."""
    server = ScriptServer()
    thread = threading.Thread(target=server.httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join()
