"""Operations endpoints: ``/healthz`` (alive), ``/readyz`` (able to serve), ``/metrics``."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from msgspec import Struct
from prometheus_client import CollectorRegistry, generate_latest

from rk.server.services.archive_metrics import ArchiveMetrics
from rk.server.services.readiness import readiness

EXPOSITION = "text/plain; version=0.0.4"
"""Prometheus's classic text format (Litestar appends the charset)."""


class Health(Struct, frozen=True, kw_only=True):
    """Answer of ``/healthz``."""

    status: str


class Ready(Struct, frozen=True, kw_only=True):
    """Answer of ``/readyz``: ``checks`` maps each part to ``ok`` or what is wrong."""

    status: str
    checks: dict[str, str]
    error: str | None = None


class HealthController(Controller):
    """Liveness, readiness and Prometheus metrics (no authentication: nothing secret)."""

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
    async def readyz(self, state: State) -> Response[Ready]:
        """200 when every part is ok; 503 naming each failing part otherwise."""
        checks = await readiness(state.storage)
        bad = [f"{part}: {state_}" for part, state_ in checks.items() if state_ != "ok"]
        if not bad:
            return Response(Ready(status="ready", checks=checks))
        body = Ready(status="not ready", checks=checks, error="not ready: " + "; ".join(bad))
        return Response(body, status_code=503)

    @get("/metrics", summary="Prometheus metrics", media_type=EXPOSITION)
    async def metrics(self, state: State) -> Response[bytes]:
        """This process's metrics, then the archive-wide ones read from the database."""
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
