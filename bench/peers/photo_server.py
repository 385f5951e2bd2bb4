"""The image site both media tools download from: a folder served over HTTP/1.1.

``python -m http.server`` listens with a backlog of 5 and closes every connection: with
img2dataset's 256 threads a process, connections wait in SYN retries (1 s, 3 s, …) and
time out, which measures the server, not the tool. This one keeps connections alive, as a
CDN does, and accepts up to ``BACKLOG`` waiting connections.

    python -m bench.peers.photo_server DIRECTORY PORT
"""

from __future__ import annotations

import functools
import subprocess
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BACKLOG = 1024
ROOT = Path(__file__).resolve().parents[2]
"""The repository root: where ``python -m bench…`` finds the package, whatever the cwd."""


class KeepAliveHandler(SimpleHTTPRequestHandler):
    """Static files over HTTP/1.1 (persistent connections), no request log."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Log nothing: one line per image would cost the shared cores."""


class PhotoServer(ThreadingHTTPServer):
    """A thread per connection, a deep accept queue."""

    request_queue_size = BACKLOG
    daemon_threads = True


def serve(directory: Path, port: int) -> subprocess.Popen[bytes]:
    """This server in a process of its own (not sharing a benchmarked process's GIL)."""
    args = [sys.executable, "-m", __name__, str(directory), str(port)]
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)


def main() -> None:
    """Serve ``DIRECTORY`` on 127.0.0.1:``PORT`` until stopped."""
    directory, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(KeepAliveHandler, directory=directory)
    with PhotoServer(("127.0.0.1", port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
