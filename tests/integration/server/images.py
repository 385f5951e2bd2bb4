"""A local image server for ingest tests: JPEGs, HTML, empty bodies, errors, redirects, delays.

Threaded, on 127.0.0.1 port 0. Each path answers what a test registered for it; a route
may fail its first ``fail_first`` requests with 503 (a transient outage) and may wait
``delay_s`` before answering (a slow download in flight), or until its ``gate`` is set
(a download held in flight until the test lets it go).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image


def jpeg(seed: int, size: tuple[int, int] = (320, 480)) -> bytes:
    """A small JPEG whose bytes differ per ``seed``."""
    img = Image.new("RGB", size, (seed * 37 % 256, seed * 91 % 256, seed * 53 % 256))
    img.putpixel((seed % size[0], 0), (255 - seed % 256, 0, 0))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=80)
    return out.getvalue()


@dataclass
class Answer:
    """What one path answers."""

    body: bytes = b""
    status: int = 200
    content_type: str = "image/jpeg"
    headers: dict[str, str] = field(default_factory=dict)
    fail_first: int = 0
    delay_s: float = 0.0
    gate: threading.Event | None = None


class ImageServer:
    """Serves registered answers; ``hits`` counts requests per path."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.hits: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def allow(self) -> list[str]:
        """``security.allow_private_hosts`` entries that let a backend fetch from this server."""
        return [f"127.0.0.1:{self.port}", f"localhost:{self.port}"]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        """The URL of ``path`` on this server under ``host``."""
        return f"http://{host}:{self.port}{path}"

    def add(self, path: str, answer: Answer | bytes) -> str:
        """Register ``path``; returns its 127.0.0.1 URL."""
        with self._lock:
            self.answers[path] = answer if isinstance(answer, Answer) else Answer(body=answer)
        return self.url(path)

    def _answer(self, path: str) -> tuple[Answer, int]:
        with self._lock:
            count = self.hits.get(path, 0) + 1
            self.hits[path] = count
            answer = self.answers.get(path, Answer(status=404, body=b"no such image"))
        return answer, count

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                answer, count = server._answer(self.path.split("?", 1)[0])
                if answer.delay_s:
                    time.sleep(answer.delay_s)
                if answer.gate is not None:
                    answer.gate.wait(60)
                status, body = answer.status, answer.body
                if count <= answer.fail_first:
                    status, body = 503, b"try again"
                self.send_response(status)
                self.send_header("Content-Type", answer.content_type)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: tests read ``hits``."""

        return Handler

    def start(self) -> ImageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serve_images() -> Iterator[ImageServer]:
    """A started ImageServer, stopped on exit."""
    server = ImageServer().start()
    try:
        yield server
    finally:
        server.stop()
