"""A stand-in website in a process of its own that keeps an access log of arrival times.

``python -m tests.integration.http.paced_site LOG`` serves 127.0.0.1 on an ephemeral port
(printed first on stdout): ``/robots.txt`` answers 404 (everything allowed), every other path
200. Each request's arrival is appended to ``LOG`` as ``<time.monotonic()> <path>``, stamped
before anything else is done with it. Its own process, so the test's backend never delays a
stamp; ``time.monotonic`` is the machine's clock, the same in every process.
"""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def handler(log: Path) -> type[BaseHTTPRequestHandler]:
    """A request handler that logs arrivals to ``log``."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            arrived = time.monotonic()
            with lock, log.open("a", encoding="utf-8") as out:
                out.write(f"{arrived:.6f} {self.path}\n")
            status, body = (404, b"none") if self.path == "/robots.txt" else (200, b"page")
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the access log above is the record."""

    return Handler


def main() -> None:
    """Serve until killed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(Path(sys.argv[1])))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever(0.05)


if __name__ == "__main__":
    main()
