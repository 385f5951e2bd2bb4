"""``rk serve-backend``: the Litestar backend under uvicorn, plus its ingest workers.

With no configuration it runs the embedded default (SQLite and ``file://`` media under
the data directory) and generates the ingest secret once, printing the lines a spider's
config.yml needs. Migrations run before the server starts, so a database problem is one
line and exit code 2, not a traceback; a PostgreSQL server that refuses connections (not
up yet, restarting) is waited for up to ``server.database_wait_s`` first.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import sqlite3
import time
from typing import Annotated

import msgspec
import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.core.api.errors import RkError
from rk.core.config import Settings

HostOption = Annotated[
    str | None, typer.Option("--host", help="Listen address (default 127.0.0.1).")
]
PortOption = Annotated[int | None, typer.Option("--port", help="Listen port (default 8092).")]
log = logging.getLogger("rk.server")

WorkersOption = Annotated[
    int | None, typer.Option("--workers", help="In-process ingest workers (default 1; 0 = none).")
]


def _with_overrides(
    settings: Settings, host: str | None, port: int | None, workers: int | None
) -> Settings:
    server = settings.server
    server = msgspec.structs.replace(
        server,
        host=host if host is not None else server.host,
        port=port if port is not None else server.port,
        workers=workers if workers is not None else server.workers,
    )
    if not 1 <= server.port <= 65535:
        fail(f"--port must be between 1 and 65535, got {server.port}")
    if server.workers < 0:
        fail(f"--workers must be 0 or more, got {server.workers}")
    return msgspec.structs.replace(settings, server=server)


WAIT_STEP_S = 2.0
"""Seconds between tries while waiting for the database at start."""


def _passing(exc: BaseException) -> bool:
    """Whether a failure to open PostgreSQL may pass: refused, timed out, a name not yet
    resolvable, or a server starting up or shutting down."""
    import asyncpg

    kinds = (ConnectionError, TimeoutError, socket.gaierror, asyncpg.CannotConnectNowError)
    return isinstance(exc, kinds)


def _migrate(settings: Settings) -> None:
    import asyncpg

    from rk.server.platform.db.engine import redact_dsn
    from rk.server.platform.db.migrate import migrate

    dsn = redact_dsn(settings.database_url)
    postgres = settings.database_url.startswith(("postgres://", "postgresql://"))
    waited_until = time.monotonic() + settings.server.database_wait_s
    while True:
        try:
            applied = asyncio.run(migrate(settings.database_url))
            break
        except RkError as exc:
            fail(str(exc))
        except (OSError, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            if not (postgres and _passing(exc)) or time.monotonic() >= waited_until:
                fail(f"cannot open the database {dsn}: {detail}")
            log.warning(
                "database %s unavailable (%s); trying again in %g s (server.database_wait_s)",
                dsn,
                detail,
                WAIT_STEP_S,
            )
            time.sleep(WAIT_STEP_S)
    if applied:
        log.info("migrations applied: %s", ", ".join(applied))


def _announce_secret(settings: Settings, path: str) -> None:
    """What a spider's config.yml needs, naming the secret's file (never printing it:
    stderr ends up in journald and log collectors)."""
    endpoint = f"http://{settings.server.host}:{settings.server.port}/admin/internal/ingest"
    if settings.server.public_url:
        endpoint = settings.server.public_url.rstrip("/") + "/admin/internal/ingest"
    typer.echo(
        f"generated the ingest secret in {path} (first start). A spider's config.yml needs:\n"
        f"ingest:\n  enabled: true\n  endpoint: {endpoint}\n  secret_file: {path}"
        "  # on the spider's machine, a copy of that file",
        err=True,
    )


def _stopped(sig: int, _frame: object) -> None:
    """uvicorn re-raises SIGINT/SIGTERM once it has shut down cleanly: exit 0 then."""
    raise SystemExit(0)


def serve_backend(
    host: HostOption = None,
    port: PortOption = None,
    workers: WorkersOption = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Run the backend: internal API, media routes and ingest workers (Ctrl-C stops it)."""
    import uvicorn

    from rk.core.api.plugins import get_plugin_manager
    from rk.server.app import create_app
    from rk.server.platform.http.capacity import backstop
    from rk.server.platform.http.proxies import proxy_options
    from rk.server.platform.http.slow_clients import timed_protocol
    from rk.server.platform.signing.secrets import resolve_secrets
    from rk.server.tags import load_vocabulary

    logging.getLogger("httpx").setLevel(logging.WARNING)
    settings = _with_overrides(settings_from(config, data_dir), host, port, workers)
    try:
        secrets = resolve_secrets(settings)
        load_vocabulary(settings.tags.vocabulary_extra)
    except RkError as exc:
        fail(str(exc))
    if secrets.created:
        _announce_secret(settings, secrets.source)
    _migrate(settings)
    app = create_app(settings, get_plugin_manager())
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=settings.server.host,
            port=settings.server.port,
            access_log=False,
            log_config=None,
            lifespan="on",
            timeout_graceful_shutdown=30,
            http=timed_protocol(settings.server.header_timeout_s, settings.server.max_connections),
            timeout_keep_alive=settings.server.keep_alive_s,
            limit_concurrency=backstop(settings.server.max_connections),
            **proxy_options(settings.server),
        )
    )
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stopped)
    server.run()
    if not server.started:
        fail("the backend did not start (see the log above)", code=1)


def register(app: typer.Typer) -> None:
    """Add ``rk serve-backend`` to the root app."""
    app.command("serve-backend")(serve_backend)
