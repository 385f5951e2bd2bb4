"""Backend test helpers: test settings, the app under uvicorn, signed requests, job waits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
import uvicorn

from rk.core.api.plugins import RkPluginManager
from rk.core.api.signing import signed_headers
from rk.core.api.storage import Storage
from rk.core.api.wire import BrandRef, ImageRef, Kind, Look, ShowIngest
from rk.core.config import (
    IngestSettings,
    QueueSettings,
    SecuritySettings,
    ServerSettings,
    Settings,
    SpiderSettings,
)
from rk.core.uids import brand_uid
from rk.server.app import create_app
from rk.server.platform.db.tables import Article, Brand, Image, IngestJob
from rk.server.platform.http.proxies import proxy_options
from tests.support.net import free_port

SECRET = "server-test-secret"
INGEST = "/admin/internal/ingest"
UPLOAD_URL = "/admin/internal/upload-url"


def backend_settings(
    tmp_path: Path,
    *,
    database: str = "",
    storage: str = "",
    workers: int = 1,
    allow: Sequence[str] = (),
    max_attempts: int = 3,
    backoff_s: int = 0,
) -> Settings:
    """Settings for one test: its own data dir and port, every timeout shrunk."""
    return Settings(
        data_dir=str(tmp_path / "data"),
        database=database,
        storage=storage,
        server=ServerSettings(port=free_port(), workers=workers, shutdown_grace_s=5),
        ingest=IngestSettings(secret=SECRET),
        security=SecuritySettings(allow_private_hosts=list(allow)),
        queues=QueueSettings(
            poll_interval_s=0.05,
            backoff_base_s=backoff_s,
            backoff_cap_s=backoff_s,
            ingest_max_attempts=max_attempts,
            ingest_stuck_s=120,
        ),
        spider=SpiderSettings(timeout_s=3),
    )


def show(
    key: str,
    urls: Sequence[str | ImageRef],
    *,
    brand: BrandRef | None = None,
    source: str = "vogue",
    kind: Kind = "runway",
    details: Sequence[str] = (),
) -> ShowIngest:
    """A show whose looks are ``urls`` (numbered from 1)."""
    refs = [u if isinstance(u, ImageRef) else ImageRef(url=u) for u in urls]
    return ShowIngest(
        source=source,
        kind=kind,
        show_key=key,
        title=f"Show {key}",
        brand=brand,
        looks=[Look(number=n, image=ref) for n, ref in enumerate(refs, start=1)],
        details=[ImageRef(url=u) for u in details],
    )


async def add_brand(name: str) -> BrandRef:
    """Insert a brand the way ``rk brands add`` does: uid from its id."""
    rows = await Brand.insert(Brand(name=name, uid=f"new-{name}"[:32])).returning(Brand.id)
    brand_id = int(rows[0]["id"])
    uid = brand_uid(brand_id)
    await Brand.update({Brand.uid: uid}).where(Brand.id == brand_id)
    return BrandRef(uid=uid, name=name)


class Backend:
    """A running backend and a client that signs what it sends."""

    def __init__(self, settings: Settings, app: Any) -> None:
        self.settings = settings
        self.app = app
        self.url = f"http://127.0.0.1:{settings.server.port}"
        self.client = httpx.AsyncClient(base_url=self.url, timeout=30)

    @property
    def storage(self) -> Storage:
        """The backend's own storage instance."""
        return self.app.state.storage

    async def signed(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        *,
        secret: str = SECRET,
        now: int | None = None,
    ) -> httpx.Response:
        """A request signed like a spider signs it (optionally with another secret or time)."""
        headers = signed_headers(secret, method, path, body, now)
        headers["Content-Type"] = "application/json"
        return await self.client.request(method, path, content=body, headers=headers)

    async def ingest(self, payload: ShowIngest | bytes) -> httpx.Response:
        """``POST ingest`` with a Struct or raw bytes."""
        body = payload if isinstance(payload, bytes) else msgspec.json.encode(payload)
        return await self.signed("POST", INGEST, body)

    async def submit(self, payload: ShowIngest) -> int:
        """``POST ingest`` that must be accepted; the job id."""
        response = await self.ingest(payload)
        assert response.status_code == 202, response.text
        return int(response.json()["job_id"])

    async def wait_job(self, job_id: int, timeout_s: float = 30) -> dict[str, Any]:
        """The job's row once it is done or failed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            row = await IngestJob.select().where(IngestJob.id == job_id).first()
            if row and row["status"] in ("done", "failed"):
                return row
            await asyncio.sleep(0.05)
        raise AssertionError(f"job {job_id} not finished after {timeout_s} s: {row}")

    async def wait_attempt(self, job_id: int, attempts: int, timeout_s: float = 30) -> dict:
        """The job's row once ``attempts`` attempts failed and it waits to be retried."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            row = await IngestJob.select().where(IngestJob.id == job_id).first()
            if row and row["status"] == "pending" and row["attempts"] >= attempts:
                return row
            await asyncio.sleep(0.02)
        raise AssertionError(f"job {job_id} did not fail {attempts} attempts: {row}")

    async def ingest_and_wait(self, payload: ShowIngest) -> dict[str, Any]:
        """Submit a show and return its finished job row."""
        return await self.wait_job(await self.submit(payload))


async def job_count() -> int:
    """How many ingest jobs exist."""
    return await IngestJob.count()


async def article_of(payload: ShowIngest) -> dict[str, Any] | None:
    """The article row of a show, or None."""
    return (
        await Article.select()
        .where((Article.source == payload.source) & (Article.show_key == payload.show_key))
        .first()
    )


async def images_of(article_id: int) -> list[dict[str, Any]]:
    """The image rows of an article, looks then details."""
    return (
        await Image.select()
        .where(Image.article_id == article_id)
        .order_by(Image.role, ascending=False)
        .order_by(Image.position)
    )


@asynccontextmanager
async def running_backend(settings: Settings, pm: RkPluginManager) -> AsyncIterator[Backend]:
    """``create_app`` under uvicorn on 127.0.0.1 in this event loop; stopped on exit."""
    app = create_app(settings, pm)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=settings.server.port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        **proxy_options(settings.server),
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped before it started")
        await asyncio.sleep(0.01)
    backend = Backend(settings, app)
    try:
        yield backend
    finally:
        await backend.client.aclose()
        server.should_exit = True
        await task
