"""The checks behind ``rk doctor``: each answers ok or a problem with what to do about it.

Backend side: the database (reachable, migrations current, pgvector on PostgreSQL) and
storage (write, read and delete a probe object). Spider side: a signed round trip with
the ingest secret, the clock against the backend's, and a contact in the User-Agent (a
warning when missing). Either side: the embedding model
and the execution provider it really runs on. Nothing here migrates or creates a database.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
import msgspec

from rk.core.config import Settings
from rk.core.redact import redact


@dataclass(frozen=True)
class Finding:
    """One line of the report: ``fix`` says what to do when ``ok`` is False; a ``warning``
    is printed with its fix but is not a problem."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:240]
    return redact(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


async def database_findings(settings: Settings) -> list[Finding]:
    """Reachable, migrations current, and on PostgreSQL whether pgvector is there."""
    from rk.server.platform.db.engine import close, connect, redact_dsn, sqlite_path
    from rk.server.platform.ops.readiness import migrations_problem

    dsn = settings.database_url
    shown = redact_dsn(dsn)
    if dsn.startswith("sqlite") and not sqlite_path(dsn).is_file():
        fix = "start rk serve-backend once (it creates it), or run rk db migrate"
        return [Finding("database", False, f"{shown}: no database file yet", fix)]
    try:
        engine = await asyncio.wait_for(connect(dsn, pool_size=1, readers=1), 10)
    except Exception as exc:
        fix = "check database: host, port, user, password, database name and the firewall"
        return [Finding("database", False, f"{shown} unreachable: {_why(exc)}", fix)]
    try:
        found = [Finding("database", True, f"{shown} reachable")]
        try:
            problem = await migrations_problem()
        except Exception as exc:
            problem = f"no rk schema ({_why(exc)})"
        fix = "run rk db migrate (rk serve-backend also migrates on start)"
        found.append(Finding("migrations", problem is None, problem or "all applied", fix))
        if dsn.startswith("postgres"):
            found.append(await _pgvector())
        return found
    finally:
        await close(engine)


async def _pgvector() -> Finding:
    from rk.server.platform.db.tables import IngestJob

    rows = await IngestJob.raw("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    if rows:
        return Finding("pgvector", True, f"extension vector {rows[0]['extversion']} installed")
    offered = await IngestJob.raw(
        "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
    )
    if offered:
        return Finding(
            "pgvector",
            False,
            f"pgvector {offered[0]['default_version']} is available but not created",
            "run CREATE EXTENSION vector; as a superuser in this database",
        )
    [version] = await IngestJob.raw("SELECT current_setting('server_version_num') AS num")
    major = int(version["num"]) // 10000
    return Finding(
        "pgvector",
        False,
        "this PostgreSQL server has no pgvector",
        f"install pgvector for this server (e.g. apt install postgresql-{major}-pgvector), then "
        "CREATE EXTENSION vector;",
    )


def _local_root(url: str) -> Path | None:
    """The folder of a ``file://`` storage URL; None for other storage."""
    parts = urlsplit(url)
    return Path(unquote(parts.path)).resolve() if parts.scheme == "file" else None


async def storage_finding(settings: Settings) -> Finding:
    """Write, read back and delete a probe object under a key no image can have; a local
    folder that is not there yet is reported, not created (the doctor leaves no trace)."""
    from rk.core.api.lookups import open_storage
    from rk.core.api.plugins import get_plugin_manager
    from rk.core.api.storage import StorageContext
    from rk.core.config import masked

    shown = str(masked(Settings(storage=settings.storage_url))["storage"]).split("?")[0]
    local = _local_root(settings.storage_url)
    if local is not None and not local.is_dir():
        fix = "start rk serve-backend once (it creates it), or create the folder"
        return Finding("storage", False, f"{shown}: no media folder yet", fix, warning=True)
    key = f"thumb/{secrets.token_hex(20)}.jpg"
    made = local is not None and not (local / "thumb").exists()
    body = b"rk doctor probe " + key.encode()
    try:
        store = open_storage(settings.storage_url, StorageContext(), get_plugin_manager())
        await asyncio.wait_for(store.put(key, body), 15)
        try:
            back = await asyncio.wait_for(store.get(key), 15)
        finally:
            await asyncio.wait_for(store.delete(key), 15)
            if made and local is not None:
                with contextlib.suppress(OSError):
                    (local / "thumb").rmdir()
    except Exception as exc:
        fix = "check storage: bucket, endpoint, credentials and write permission"
        return Finding("storage", False, f"{shown}: {_why(exc)}", fix)
    if back != body:
        return Finding("storage", False, f"{shown}: read back other bytes than written", "")
    return Finding("storage", True, f"{shown}: wrote, read and deleted a probe object")


def backend_root(settings: Settings) -> str:
    """The backend's base URL from ``ingest.endpoint`` (``…/admin/internal/ingest``)."""
    return settings.ingest.endpoint.split("/admin/internal/", 1)[0]


async def clock_finding(settings: Settings) -> Finding:
    """This machine's clock against the backend's ``Date`` header."""
    url = backend_root(settings) + "/healthz"
    allowed = settings.security.clock_skew_s
    try:
        async with httpx.AsyncClient(timeout=10) as http:
            sent = time.time()
            answer = await http.get(url)
            received = time.time()
        stamp = email.utils.parsedate_to_datetime(answer.headers["date"]).timestamp()
    except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
        return Finding("clock", False, f"cannot read the backend's clock at {url}: {_why(exc)}")
    return skew_finding((sent + received) / 2 - stamp, allowed)


def skew_finding(skew_s: float, allowed_s: int) -> Finding:
    """A problem past half the allowed skew: signing still works, but not for long."""
    detail = f"{skew_s:+.0f} s against the backend (signatures allow ±{allowed_s} s)"
    if abs(skew_s) > allowed_s / 2:
        return Finding("clock", False, detail, "sync both clocks with NTP (chrony, timesyncd)")
    return Finding("clock", True, detail)


async def ingest_finding(settings: Settings) -> Finding:
    """A signed ``GET ping``: proves the endpoint, the secret and the signing path."""
    from rk.core.api.errors import RkError
    from rk.core.runtime.client import BackendAuthError, BackendClient, BackendError

    endpoint = settings.ingest.endpoint
    if not settings.ingest.secret:
        fix = "set ingest.secret to the backend's (its <data_dir>/ingest.secret)"
        return Finding("ingest secret", False, "ingest.secret is empty", fix)
    try:
        async with BackendClient(endpoint, settings.ingest.secret, timeout_s=10) as client:
            pong = await client.ping()
    except BackendAuthError as exc:
        fix = "copy the backend's secret (its ingest.secret or <data_dir>/ingest.secret)"
        return Finding("ingest secret", False, str(exc), fix)
    except (BackendError, RkError) as exc:
        fix = "check ingest.endpoint: it ends in /admin/internal/ingest on a running backend"
        return Finding("ingest secret", False, str(exc), fix)
    return Finding("ingest secret", True, f"signed ping to {endpoint} ok (rk {pong.version})")


def contact_finding(settings: Settings) -> Finding:
    """Whether sites can tell who runs this spider: ``spider.contact`` in the User-Agent."""
    agent = settings.spider.effective_user_agent
    if settings.spider.contact:
        return Finding("contact", True, f"sites see User-Agent {agent!r}")
    fix = "set spider.contact to a URL or e-mail address where a site can reach you"
    detail = f"spider.contact is not set: sites see User-Agent {agent!r} and no way to reach you"
    return Finding("contact", False, detail, fix, warning=True)


def model_finding(settings: Settings) -> Finding:
    """The model loads, and runs on the execution provider that was asked for."""
    from rk.core.api.lookups import get_embedder
    from rk.core.api.plugins import get_plugin_manager

    vision = settings.vision
    wanted_cuda = any("CUDA" in name for name in vision.providers)
    cuda_fix = "install onnxruntime-gpu (pip install 'rk[gpu]') and the CUDA/cuDNN libraries"
    if not Path(vision.model).expanduser().exists():
        return Finding("model", False, f"{vision.model}: no such directory", "set vision.model")
    try:
        factory = get_embedder(vision.embedder, get_plugin_manager())
        embedder = factory(msgspec.to_builtins(vision))
    except Exception as exc:
        if wanted_cuda and "CUDA" in str(exc):
            return Finding("model", False, f"CUDA asked for but not given: {_why(exc)}", cuda_fix)
        fix = "re-export it with rk embed export, or point vision.model at the export directory"
        return Finding("model", False, f"{vision.model}: {_why(exc)}", fix)
    provider = str(embedder.provider)
    detail = f"{embedder.model_id} (dim {embedder.dim}) on {provider}"
    close = getattr(embedder, "close", None)
    if callable(close):
        close()
    if wanted_cuda and "CUDA" not in provider:
        return Finding("model", False, f"CUDA asked for but not given: {detail}", cuda_fix)
    return Finding("model", True, detail)
