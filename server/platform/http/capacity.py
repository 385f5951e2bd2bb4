"""Past ``server.max_connections``: a JSON 503 with ``Retry-After``, answered by rk itself.

uvicorn's own cap (``limit_concurrency``) answers a plain-text "Service Unavailable" that no
rk client can read as an error. Here the protocol (``CappedProtocol``, mixed into rk's
uvicorn protocol) applies the same rule as uvicorn — this process holds ``max_connections``
open connections or requests in flight — and marks the request's scope; the app's outer
handler (``refuse_over_capacity``) answers a marked request with ``{"error": …}``, a
``Retry-After`` and ``Connection: close``, before any route runs and with the security
headers, and counts it in ``rk_http_over_capacity_total``. uvicorn's cap stays on, set
higher (``backstop``), as a hard limit should answering 503s itself pile up.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from rk.server.platform.http.fixed_answers import FixedAnswer
from rk.server.platform.http.request_context import HttpMetrics

log = logging.getLogger("rk.server.request")
OVER_CAPACITY = "rk.over_capacity"
"""Scope key the protocol sets on a request that arrived past the cap."""
RETRY_AFTER_S = 2
"""Seconds a shed client should wait: long enough for requests in flight to finish."""
MESSAGE = "over capacity: this backend process is at server.max_connections, retry later"
ANSWER = FixedAnswer(
    503, MESSAGE, [(b"retry-after", b"%d" % RETRY_AFTER_S), (b"connection", b"close")]
)


def backstop(max_connections: int) -> int:
    """uvicorn's own ``limit_concurrency``: above rk's cap, so rk's JSON answer comes first."""
    return max_connections + max(10, max_connections // 10)


class CappedProtocol(HttpToolsProtocol):
    """uvicorn's protocol, marking each request that arrives at ``max_connections``."""

    max_connections = 1000

    def on_headers_complete(self) -> None:
        cap = self.max_connections
        if len(self.connections) >= cap or len(self.tasks) >= cap:
            cast("dict[str, Any]", self.scope)[OVER_CAPACITY] = True
        super().on_headers_complete()


def refuse_over_capacity(app: ASGIApp) -> ASGIApp:
    """Wrap ``app``: a request the protocol marked gets the JSON 503 and nothing else runs."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and cast("dict[str, Any]", scope).get(OVER_CAPACITY):
            log.warning("%s over capacity -> 503 (server.max_connections)", scope["method"])
            metrics: HttpMetrics | None = getattr(scope["app"].state, "http_metrics", None)
            if metrics is not None:
                metrics.over_capacity.inc()
            await ANSWER.send(send)
            return
        await app(scope, receive, send)

    return guard
