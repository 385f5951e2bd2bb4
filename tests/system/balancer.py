"""The load balancer in front of the backends, recording every request a worker sent.

Operators run the backends behind one; here it also keeps the evidence for "no 5xx
answered to a spider that was not retried to success": each request's method, path, a
hash of its body and the status it got (502 when no backend could answer it).
A request is sent to the next backend in turn; one whose connection is refused (the
request never reached it) goes to the other, as a balancer polling ``/readyz`` would.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import time
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from tests.system.netloop import NetLoop

HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"content-length", b"host"}


@dataclass(frozen=True)
class Exchange:
    """One request through the balancer and the status its sender got."""

    at: float
    method: str
    path: str
    body: str
    status: int
    upstream: int
    text: str = ""
    """The request body, kept only for answers of 500 and above (to judge their retry)."""


class Balancer:
    """Round robin over ``upstreams`` (ports) on 127.0.0.1:``port``; ``log`` keeps every call."""

    def __init__(self, net: NetLoop, port: int, upstreams: list[int]) -> None:
        self.net = net
        self.port = port
        self.upstreams = upstreams
        self.log: list[Exchange] = []
        self._turn = itertools.count()
        self._client: httpx.AsyncClient | None = None
        self._server: uvicorn.Server | None = None

    def start(self) -> None:
        """Serve on ``port`` (in the net loop)."""
        self.net.call(self._start())

    def stop(self) -> None:
        """Stop serving and close the upstream connections."""
        self.net.call(self._stop())

    async def _start(self) -> None:
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(120, connect=5))
        config = uvicorn.Config(
            self._app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            interface="asgi3",
        )
        self._server = uvicorn.Server(config)
        serving = asyncio.get_running_loop().create_task(self._server.serve())
        for _ in range(1000):
            if self._server.started or serving.done():
                break
            await asyncio.sleep(0.02)
        if not self._server.started:
            raise RuntimeError(f"the balancer did not start on port {self.port}")

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._client is not None:
            await self._client.aclose()

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        query = scope.get("query_string", b"").decode()
        path = scope["path"] + (f"?{query}" if query else "")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP]
        status, answer_headers, content, upstream = await self._forward(
            scope["method"], path, headers, body
        )
        self.log.append(
            Exchange(
                time.time(),
                scope["method"],
                path,
                hashlib.sha256(body).hexdigest(),
                status,
                upstream,
                body.decode("utf-8", "replace") if status >= 500 else "",
            )
        )
        await send({"type": "http.response.start", "status": status, "headers": answer_headers})
        await send({"type": "http.response.body", "body": content})

    async def _forward(
        self, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes, int]:
        assert self._client is not None
        first = next(self._turn)
        for n in range(len(self.upstreams)):
            upstream = self.upstreams[(first + n) % len(self.upstreams)]
            try:
                response = await self._client.request(
                    method, f"http://127.0.0.1:{upstream}{path}", headers=headers, content=body
                )
            except httpx.ConnectError:
                continue
            except httpx.HTTPError as exc:
                return 502, [], f"balancer: {type(exc).__name__}".encode(), upstream
            kept = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP]
            return response.status_code, kept, response.content, upstream
        return 502, [], b"balancer: no backend up", 0
