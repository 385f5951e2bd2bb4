"""Storage test helpers: run moto's S3 server, make buckets, serve the /media routes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import uvicorn
from litestar import Litestar
from litestar.di import Provide

from rk.core.api.storage import Storage
from rk.core.config import Settings
from rk.server.media.routes import media_routes
from tests.support.net import free_port, wait_for_port

SECRET = "storage-test-secret"
DUMMY_KEYS = "access_key_id=testing&secret_access_key=testing"


@contextmanager
def run_moto() -> Iterator[str]:
    """moto's S3 server on a free 127.0.0.1 port, stopped on exit; yields its endpoint."""
    port = free_port()
    moto_server = Path(sys.executable).with_name("moto_server")
    proc = subprocess.Popen(
        [str(moto_server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def new_bucket(endpoint: str) -> str:
    """Create a fresh bucket on the S3 server (moto accepts the unsigned request)."""
    bucket = f"rk-{uuid.uuid4().hex[:12]}"
    httpx.put(f"{endpoint}/{bucket}").raise_for_status()
    return bucket


def s3_url(endpoint: str, bucket: str, extra: str = "") -> str:
    """An s3:// storage URL for ``bucket`` under the ``media`` prefix, with dummy keys."""
    query = f"endpoint={endpoint}&region=us-east-1&{DUMMY_KEYS}"
    return f"s3://{bucket}/media?{query}{'&' + extra if extra else ''}"


def media_app(storage: Storage, secret: str) -> Litestar:
    """A minimal backend: the media routes with exactly the dependencies they document.

    It has no database, so it serves signed reads (``url_for``) only: public reads, which
    ask the database whether a published article uses the key, are the backend's tests.
    """
    settings = Settings()
    return Litestar(
        route_handlers=media_routes(),
        dependencies={
            "storage": Provide(lambda: storage, sync_to_thread=False),
            "secret": Provide(lambda: secret, sync_to_thread=False),
            "settings": Provide(lambda: settings, sync_to_thread=False),
        },
    )


@asynccontextmanager
async def serve_media(storage: Storage, secret: str, port: int) -> AsyncIterator[str]:
    """The media routes served by uvicorn on 127.0.0.1:port; yields the base URL."""
    config = uvicorn.Config(
        media_app(storage, secret), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped before it started")
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
