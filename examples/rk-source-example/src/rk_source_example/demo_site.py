"""The demo lookbook site: ``python -m rk_source_example.demo_site [--port 8300]``."""

from __future__ import annotations

import argparse
import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SITE = Path(__file__).with_name("site")


def make_server(port: int = 8300, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server for the shipped site (call ``serve_forever`` to run it)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """No line per request."""

    handler = functools.partial(Quiet, directory=str(SITE))
    return ThreadingHTTPServer((host, port), handler)


def main() -> None:
    """Serve the site until Ctrl+C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8300)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    server = make_server(args.port, args.host)
    print(f"demo lookbook on http://{args.host}:{server.server_port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()


if __name__ == "__main__":
    main()
