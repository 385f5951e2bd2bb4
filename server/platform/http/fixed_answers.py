"""A JSON error answered straight to ASGI, before any route runs: built once, sent often.

The guards that wrap the whole app (``capacity``, ``control_paths``) answer without Litestar's
response machinery, so the start and body events are made once per message at import.
"""

from __future__ import annotations

import msgspec
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Send

from rk.core.api.wire import ErrorBody


class FixedAnswer:
    """One ``{"error": message}`` answer with ``status`` and any ``extra`` headers."""

    def __init__(self, status: int, message: str, extra: list[tuple[bytes, bytes]]) -> None:
        body = msgspec.json.encode(ErrorBody(error=message))
        self.headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(body)),
            *extra,
        ]
        self.status = status
        self.end: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": body,
            "more_body": False,
        }

    async def send(self, send: Send) -> None:
        """Send the answer (a fresh header list each time: later hooks may add to it)."""
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": self.status,
            "headers": list(self.headers),
        }
        await send(start)
        await send(self.end)
