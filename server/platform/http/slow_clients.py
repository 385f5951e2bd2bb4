"""Time limits for slow clients: the request head (in uvicorn's protocol) and the body (ASGI).

uvicorn closes an idle keep-alive connection, but a connection that sends half a request
head and stalls, or a head and then a trickle of body, is held for ever. Here:

- ``timed_protocol`` is uvicorn's httptools protocol with a head timer: a request head must
  be complete ``server.header_timeout_s`` after the connection opened or the previous answer
  was sent, else the connection is closed (nothing is answered: there is no request yet);
- the same protocol marks requests past ``server.max_connections``
(``rk.server.platform.http.capacity``); - ``body_deadline`` is an ASGI middleware: the whole body
must arrive within
  ``server.body_timeout_s`` of the head, else the request is answered 408 and the connection
  closed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from rk.server.platform.http.capacity import CappedProtocol
from rk.server.platform.http.errors import ApiError

log = logging.getLogger("rk.server.request")


class BodyTimeout(ApiError):
    """The request body did not arrive in time."""

    status_code = 408

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request body did not arrive within {seconds:g} s")
        self.headers = {"Connection": "close"}


class _TimedHead(HttpToolsProtocol):
    """uvicorn's protocol, closing a connection whose request head is late."""

    header_timeout_s = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def _arm_head(self) -> None:
        self._disarm_head()
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_late)

    def _disarm_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            log.info("closed a connection: no request head within %g s", self.header_timeout_s)
            self.transport.close()

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_head()

    def on_headers_complete(self) -> None:
        self._disarm_head()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        idle = not self.pipeline
        super().on_response_complete()
        if idle and not self.transport.is_closing():
            self._arm_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head()
        super().connection_lost(exc)


def timed_protocol(header_timeout_s: float, max_connections: int) -> type[HttpToolsProtocol]:
    """The protocol class for ``uvicorn.Config(http=…)`` with this head timeout, marking
    requests past ``max_connections`` for rk's JSON 503 (``rk.server.platform.http.capacity``)."""
    fields = {"header_timeout_s": header_timeout_s, "max_connections": max_connections}
    return type("TimedHeadProtocol", (_TimedHead, CappedProtocol), fields)


def body_deadline(app: ASGIApp) -> ASGIApp:
    """The middleware (Litestar ``middleware=[…]``): 408 when the body is later than allowed."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        limit: float = scope["app"].state.settings.server.body_timeout_s
        deadline = asyncio.get_running_loop().time() + limit
        done = False

        async def timed_receive() -> ReceiveMessage:
            nonlocal done
            if done:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeout(limit) from None
            done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        await app(scope, timed_receive, send)

    return middleware
