"""Operations endpoints: ``/healthz`` (alive), ``/readyz`` (able to serve), ``/metrics``.

``/metrics`` and ``/readyz``'s checks answer only clients ``rk.server.platform.ops.ops_access``
allows; others get a 403 from ``/metrics`` and ``/readyz``'s status code with its bare status (a
load balancer needs no more).
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from msgspec import Struct
from prometheus_client import CollectorRegistry, generate_latest

from rk.server.platform.http.errors import ApiError
from rk.server.platform.ops.archive_metrics import ArchiveMetrics
from rk.server.platform.ops.ops_access import OpsAccess
from rk.server.platform.ops.readiness import readiness

EXPOSITION = "text/plain; version=0.0.4"
"""Prometheus's classic text format (Litestar appends the charset)."""


class Health(Struct, frozen=True, kw_only=True):
    """Answer of ``/healthz``."""

    status: str


class Ready(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Answer of ``/readyz``: ``checks`` maps each part to ``ok`` or what is wrong, and
    ``error`` names the failing parts; a client outside ``server.ops_allow`` gets ``status``
    alone."""

    status: str
    checks: dict[str, str] | None = None
    error: str | None = None


class OpsRefused(ApiError):
    """``/metrics`` asked by a client outside ``server.ops_allow`` without the ops token."""

    status_code = 403

    def __init__(self) -> None:
        super().__init__(
            "forbidden: /metrics answers server.ops_allow addresses"
            " or Authorization: Bearer <server.ops_token>"
        )


def _ops(request: Request[Any, Any, Any]) -> bool:
    access: OpsAccess = request.app.state.ops_access
    return access.allows(request.scope)


class HealthController(Controller):
    """Liveness, readiness and Prometheus metrics; the detail only for ``server.ops_allow``."""

    path = "/"
    tags = ("operations",)
    include_in_schema = True

    @get("/healthz", summary="The process is up (no I/O)")
    async def healthz(self) -> Health:
        """Always ``{"status": "ok"}`` while the process serves requests."""
        return Health(status="ok")

    @get(
        "/readyz",
        summary="Database, migrations and storage all reachable and current",
        responses={503: ResponseSpec(Ready, description="A part is down; `error` names it")},
    )
    async def readyz(self, state: State, request: Request[Any, Any, Any]) -> Response[Ready]:
        """200 when every part is ok; 503 naming each failing part otherwise (the status alone
        for a client outside ``server.ops_allow``)."""
        checks = await readiness(state.storage)
        bad = [f"{part}: {state_}" for part, state_ in checks.items() if state_ != "ok"]
        status_code = 503 if bad else 200
        status = "not ready" if bad else "ready"
        if not _ops(request):
            return Response(Ready(status=status), status_code=status_code)
        error = "not ready: " + "; ".join(bad) if bad else None
        return Response(Ready(status=status, checks=checks, error=error), status_code=status_code)

    @get("/metrics", summary="Prometheus metrics", media_type=EXPOSITION)
    async def metrics(self, state: State, request: Request[Any, Any, Any]) -> Response[bytes]:
        """This process's metrics, then the archive-wide ones read from the database."""
        if not _ops(request):
            raise OpsRefused
        runtime = getattr(state, "embed_runtime", None)
        embedder = getattr(runtime, "embedder", None)
        model = embedder.model_id if embedder is not None else None
        reader = state.get("archive_metrics")
        if not isinstance(reader, ArchiveMetrics):
            reader = state["archive_metrics"] = ArchiveMetrics()
        archive = CollectorRegistry()
        archive.register(await reader.snapshot(model, state.settings.embed.failure_cap))
        body = generate_latest(state.http_metrics.registry) + generate_latest(archive)
        return Response(body, media_type=EXPOSITION)
