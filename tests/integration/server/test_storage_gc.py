"""Orphans from killed workers are swept: ``rk storage gc`` ends with 0 orphans, 0 missing.

A real ``rk serve-backend`` is killed with SIGKILL three times in the middle of one job
(its last image hangs), so the job fails for good ("worker lost") and the objects it
wrote stay behind, unreferenced. One of them is shared with a committed article and must
survive the sweep (issue 9 §3), on both engines.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec

from rk.core.api.signing import signed_headers
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import IngestJob
from tests.integration.server.helpers import INGEST, show
from tests.integration.server.images import Answer, ImageServer, jpeg
from tests.support.cli import RK, rk
from tests.support.net import free_port, wait_for_port


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def env_for(data: Path, dsn: str, allow: list[str] | None = None) -> dict[str, str]:
    """The clean environment of every ``rk`` process of this test."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    return base | {
        "RK_DATA_DIR": str(data),
        "RK_DATABASE": dsn,
        "RK_SECURITY_ALLOW_PRIVATE_HOSTS": json.dumps(allow or []),
        "RK_QUEUES_POLL_INTERVAL_S": "0.05",
        "RK_QUEUES_INGEST_STUCK_S": "1",
        "RK_QUEUES_INGEST_MAX_ATTEMPTS": "3",
        "RK_MEDIA_GC_INTERVAL_S": "0",
        "RK_LOAD_PLUGINS": "s4_storage,queues,vectors,vogue,theimpression",
    }


@contextmanager
def serve(
    data: Path, dsn: str, log: Path, allow: list[str]
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``rk serve-backend`` on a free port; killed on exit if still running."""
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [RK, "serve-backend", "--port", str(port), "--data-dir", str(data)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env_for(data, dsn, allow),
        )
    try:
        wait_for_port(port)
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def post(url: str, data: Path, payload: Any) -> int:
    body = msgspec.json.encode(payload)
    secret = data.joinpath("ingest.secret").read_text().strip()
    headers = signed_headers(secret, "POST", INGEST, body)
    response = httpx.post(url + INGEST, content=body, headers=headers)
    assert response.status_code == 202, response.text
    return int(response.json()["job_id"])


async def job_row(job_id: int) -> dict[str, Any]:
    row = await IngestJob.select().where(IngestJob.id == job_id).first()
    assert row is not None
    return row


async def until(check: Callable[[], Any], what: str, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if hasattr(result, "__await__"):
            result = await result
        if result:
            return result
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*.jpg") if p.is_file()}


async def test_kill_9_orphans_are_swept_and_shared_objects_kept(
    images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    data, log = tmp_path / "rk-data", tmp_path / "serve.log"
    media = data / "media"
    shared, own = jpeg(1), [jpeg(2), jpeg(3)]
    hang = threading.Event()
    try:
        with serve(data, any_dsn, log, images.allow) as (_, url):
            first = post(url, data, show("ss25/kept", [images.add("/shared.jpg", shared)]))
            engine = await connect(any_dsn)
            try:
                await until(lambda: _done(first), "the first show")
            finally:
                await close(engine)
        urls = [images.url("/shared.jpg")] + [
            images.add(f"/own{n}.jpg", body) for n, body in enumerate(own)
        ]
        urls.append(images.add("/hang.jpg", Answer(body=jpeg(9), gate=hang)))
        doomed: int | None = None
        for attempt in (1, 2, 3):
            with serve(data, any_dsn, log, images.allow) as (proc, url):
                if doomed is None:
                    doomed = post(url, data, show("ss25/doomed", urls))
                await until(lambda n=attempt: images.hits.get("/hang.jpg", 0) >= n, "the hang")
                await until(lambda: len(files(media)) >= 6, "the job's objects")
                proc.send_signal(signal.SIGKILL)
                assert proc.wait(timeout=10) == -signal.SIGKILL
        assert doomed is not None
        with serve(data, any_dsn, log, images.allow) as (_, url):
            engine = await connect(any_dsn)
            try:
                failed = await until(lambda: _failed(doomed), "the job to be given up")
            finally:
                await close(engine)
        assert failed["attempts"] == 3
        assert failed["last_error"].startswith("worker lost")
    finally:
        hang.set()
    env = env_for(data, any_dsn)
    orphans = {f"{kind}/{sha1(body)}.jpg" for body in own for kind in ("runway", "thumb")}
    kept = {f"runway/{sha1(shared)}.jpg", f"thumb/{sha1(shared)}.jpg"}
    assert files(media) == orphans | kept

    young = rk("storage", "gc", env=env)
    assert young.returncode == 0, young.stderr
    assert "objects: 6 listed, 2 referenced, 4 within the grace period" in young.stdout
    assert "orphans: 0 (deleted 0)" in young.stdout
    assert files(media) == orphans | kept

    dry = rk("storage", "gc", "--dry-run", "--grace-s", "0", env=env)
    assert dry.returncode == 0, dry.stderr
    assert "orphans: 4 (would delete 4)" in dry.stdout
    assert "missing: 0 " in dry.stdout
    assert files(media) == orphans | kept

    swept = rk("storage", "gc", "--grace-s", "0", env=env)
    assert swept.returncode == 0, swept.stderr
    assert "orphans: 4 (deleted 4)" in swept.stdout
    assert files(media) == kept

    again = rk("storage", "gc", "--grace-s", "0", env=env)
    assert "orphans: 0 (deleted 0)" in again.stdout
    assert "missing: 0 " in again.stdout


async def _done(job_id: int) -> bool:
    return (await job_row(job_id))["status"] == "done"


async def _failed(job_id: int) -> dict[str, Any] | None:
    row = await job_row(job_id)
    return row if row["status"] == "failed" else None
