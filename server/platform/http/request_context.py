"""Per-request context: a request id on every log line, latency by route, one log line.

``request_context`` is an ASGI middleware on every route. It takes the caller's
``X-Request-ID`` when it is a sane token (a proxy's id carries through), else makes one,
tags the request's log lines with it (``rk.core.logs.log_ids``), sends it back in the
answer, and records the request's duration by route template, method and status in this
process's ``HttpMetrics``. Failed requests (4xx, 5xx) get an INFO/WARNING line; the rest
DEBUG, so a busy backend does not log every 202 (the access log halves uvicorn's speed).

A client that goes away before its answer starts (it dropped its body half-way, or hung
up while waiting) is logged as 499, counted in ``rk_http_client_closed_total`` and kept out
of the latency histogram: it is not a server fault and its duration says nothing about rk.
"""

from __future__ import annotations

import logging
import os
import random
import re
import time
from typing import Any, cast

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector

from rk import __version__
from rk.core.logs import log_ids

log = logging.getLogger("rk.server.request")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
CLIENT_CLOSED = 499
"""nginx's status for a request whose client closed the connection before the answer."""
_GONE = "rk.client_gone"
"""Scope key set once the client disconnected before the answer started."""


def client_gone(scope: Scope) -> bool:
    """Whether this request's client went away before its answer started."""
    return bool(cast("dict[str, Any]", scope).get(_GONE))


class HttpMetrics:
    """This process's own metrics: request latency, process stats, build info.

    Per process on purpose: each backend process listens on its own port and is scraped
    as its own target, so Prometheus keeps them apart by ``instance`` and sums them
    with ``sum by (route)`` — no shared multiprocess directory to set up or clean.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "rk_http_request_duration_seconds",
            "Backend request latency by route template, method and status.",
            ["route", "method", "status"],
            buckets=LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.closed = Counter(
            "rk_http_client_closed",
            "Requests whose client went away before the answer (status 499), by route.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.over_capacity = Counter(
            "rk_http_over_capacity",
            "Requests answered 503 because the process was at server.max_connections.",
            registry=self.registry,
        )
        ProcessCollector(registry=self.registry)
        info = Gauge(
            "rk_backend_info", "This backend process.", ["version", "pid"], registry=self.registry
        )
        info.labels(__version__, str(os.getpid())).set(1)
        self._children: dict[tuple[str, str, int], Any] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """Record one request; the labelled child is looked up once per label set, not
        once per request (``labels()`` takes a lock and builds its key every call)."""
        key = (route, method, status)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self.latency.labels(route, method, str(status))
        child.observe(seconds)

    def client_closed(self, route: str, method: str) -> None:
        """Count a request whose client left (not a latency: it never got an answer)."""
        self.closed.labels(route, method, str(CLIENT_CLOSED)).inc()


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if REQUEST_ID.match(text):
                return text
    # An id to correlate log lines, not a secret: no urandom system call per request.
    return f"{random.getrandbits(64):016x}"


def request_context(app: ASGIApp) -> ASGIApp:
    """The middleware (Litestar ``middleware=[request_context]``)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        rid = _request_id(scope)
        status = 500
        started = time.perf_counter()
        answering = False

        async def watched_receive() -> ReceiveMessage:
            message = await receive()
            if message["type"] == "http.disconnect" and not answering:
                cast("dict[str, Any]", scope)[_GONE] = True
            return message

        async def send_with_id(message: Message) -> None:
            nonlocal status, answering
            if message["type"] == "http.response.start":
                answering = True
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", rid.encode())]
            await send(message)

        with log_ids(request_id=rid):
            try:
                await app(scope, watched_receive, send_with_id)
            finally:
                elapsed = time.perf_counter() - started
                route = scope.get("path_template") or "unmatched"
                method = scope.get("method", "")
                metrics: HttpMetrics | None = getattr(scope["app"].state, "http_metrics", None)
                if client_gone(scope):
                    status = CLIENT_CLOSED
                    if metrics is not None:
                        metrics.client_closed(route, method)
                elif metrics is not None:
                    metrics.observe(route, method, status, elapsed)
                level = logging.WARNING if status >= 500 else logging.INFO
                if status < 400:
                    level = logging.DEBUG
                log.log(level, "%s %s -> %d in %.1f ms", method, route, status, elapsed * 1000)

    return middleware
