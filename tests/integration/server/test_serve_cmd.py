"""``rk serve-backend`` as a real subprocess: embedded default end to end, restarts, SIGTERM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import msgspec
import pytest

from rk.core.api.signing import signed_headers
from tests.integration.server.helpers import INGEST, show
from tests.integration.server.images import Answer, ImageServer, jpeg
from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port
from tests.support.pg import fresh_database
from tests.system.gate import TcpGate
from tests.system.netloop import NetLoop

SCRIPT = Path(__file__).with_name("signed_post.sh")


class Served:
    """A running ``rk serve-backend`` process and where it keeps its data."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, data: Path, log: Path) -> None:
        self.proc = proc
        self.url = f"http://127.0.0.1:{port}"
        self.data = data
        self.log = log

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the process and wait for it to exit; its exit code."""
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=30)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def jobs(self) -> list[dict[str, Any]]:
        return self.query("SELECT * FROM ingest_jobs ORDER BY id")

    def query(self, sql: str) -> list[dict[str, Any]]:
        with sqlite3.connect(self.data / "rk.sqlite3") as db:
            db.row_factory = sqlite3.Row
            return [dict(row) for row in db.execute(sql)]

    def wait_job(self, job_id: int, timeout_s: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            rows = [j for j in self.jobs() if j["id"] == job_id]
            if rows and rows[0]["status"] in ("done", "failed"):
                return rows[0]
            time.sleep(0.05)
        raise AssertionError(f"job {job_id} not finished: {self.jobs()}\n{self.output()}")

    def post_show(self, payload: Any) -> int:
        body = msgspec.json.encode(payload)
        headers = signed_headers(
            self.data.joinpath("ingest.secret").read_text().strip(), "POST", INGEST, body
        )
        response = httpx.post(self.url + INGEST, content=body, headers=headers)
        assert response.status_code == 202, response.text
        return int(response.json()["job_id"])


@contextmanager
def serve(tmp_path: Path, images: ImageServer | None = None, **env: str) -> Iterator[Served]:
    """``rk serve-backend`` on a free port with the data dir under ``tmp_path``.

    With ``images``, the backend may fetch from that image server (its host:port only).
    """
    port = free_port()
    data = tmp_path / "rk-data"
    log = tmp_path / f"serve-{port}.log"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    settings = {
        "RK_SECURITY_ALLOW_PRIVATE_HOSTS": json.dumps(images.allow if images else []),
        "RK_QUEUES_POLL_INTERVAL_S": "0.05",
        "RK_LOAD_PLUGINS": "s4_storage,queues,vectors,vogue,theimpression",
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [RK, "serve-backend", "--port", str(port), "--data-dir", str(data)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**clean, **settings, **env},
            cwd=tmp_path,
        )
    served = Served(proc, port, data, log)
    try:
        wait_for_port(port)
        yield served
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("openssl")), reason="needs curl and openssl"
)
def test_embedded_default_end_to_end_with_curl(tmp_path: Path, images: ImageServer) -> None:
    with serve(tmp_path, images) as served:
        secret_file = served.data / "ingest.secret"
        secret = secret_file.read_text().strip()
        assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        time.sleep(0.2)
        first_start = served.output()
        assert "generated the ingest secret" in first_start
        assert f"secret_file: {secret_file}" in first_start
        assert secret not in first_start
        assert f"endpoint: {served.url}/admin/internal/ingest" in first_start

        one, two = jpeg(1), jpeg(2)
        payload = show(
            "ss25/curl",
            [images.add("/1.jpg", one), images.add("/2.jpg", two), images.url("/404.jpg")],
        )
        body = tmp_path / "show.json"
        body.write_bytes(msgspec.json.encode(payload))
        posted = subprocess.run(
            ["sh", str(SCRIPT), served.url, secret, INGEST, str(body)],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        job_id = json.loads(posted.stdout)["job_id"]
        job = served.wait_job(job_id)
        assert job["outcome"] == "created"
        assert job["note"] == "created, 2 images, 1 missing: look 3 (HTTP 404)"
        articles = served.query("SELECT id, status, show_key FROM articles")
        assert articles == [{"id": 1, "status": "pending", "show_key": "ss25/curl"}]
        keys = {row["key"] for row in served.query("SELECT key FROM images")}
        for key in keys:
            assert (served.data / "media" / key).is_file()
        assert len(list((served.data / "media" / "thumb").iterdir())) == 2
        assert served.stop() == 0
        log = served.output()
        for line in ("database: sqlite:///", "storage: file://", "ingest workers: 1"):
            assert line in log
        assert "Traceback" not in log

    with serve(tmp_path, images) as again:
        assert again.data.joinpath("ingest.secret").read_text().strip() == secret
        time.sleep(0.2)
        assert "generated the ingest secret" not in again.output()
        assert again.stop(signal.SIGINT) == 0


def test_sigterm_mid_job_releases_it_and_writes_nothing(
    tmp_path: Path, images: ImageServer
) -> None:
    fast = images.add("/fast.jpg", jpeg(3))
    images.add("/slow.jpg", Answer(body=jpeg(4), delay_s=8))
    payload = show("ss25/sigterm", [fast, images.url("/slow.jpg")])
    with serve(tmp_path, images, RK_SERVER_SHUTDOWN_GRACE_S="0.2") as served:
        job_id = served.post_show(payload)
        deadline = time.monotonic() + 20
        while "/slow.jpg" not in images.hits and time.monotonic() < deadline:
            time.sleep(0.02)
        assert images.hits.get("/fast.jpg") == 1
        assert served.stop() == 0
        assert "released on shutdown" in served.output()
        job = next(j for j in served.jobs() if j["id"] == job_id)
        assert (job["status"], job["attempts"], job["outcome"]) == ("pending", 0, "")
        assert served.query("SELECT id FROM articles") == []
        assert served.query("SELECT id FROM images") == []
        media = served.data / "media"
        assert not media.exists() or [p for p in media.rglob("*") if p.is_file()] == []

    images.add("/slow.jpg", jpeg(4))
    with serve(tmp_path, images) as restarted:
        job = restarted.wait_job(job_id)
        assert job["outcome"] == "created"
        assert job["note"] == "created, 2 images"
        assert restarted.stop() == 0


def test_sigterm_lets_a_job_in_flight_finish(tmp_path: Path, images: ImageServer) -> None:
    images.add("/slowish.jpg", Answer(body=jpeg(5), delay_s=1.0))
    payload = show("ss25/finish", [images.url("/slowish.jpg")])
    with serve(tmp_path, images) as served:
        job_id = served.post_show(payload)
        deadline = time.monotonic() + 20
        while "/slowish.jpg" not in images.hits and time.monotonic() < deadline:
            time.sleep(0.02)
        assert served.stop() == 0
        job = next(j for j in served.jobs() if j["id"] == job_id)
        assert (job["status"], job["outcome"]) == ("done", "created")
        assert len(served.query("SELECT id FROM images")) == 1


NOWHERE = "postgresql://nobody@127.0.0.1:1/none"
NO_DATABASE = f"error: cannot open the database {NOWHERE}"


def start_without_database(tmp_path: Path, wait_s: int) -> subprocess.CompletedProcess[str]:
    """``rk serve-backend`` on a PostgreSQL address where nothing listens, waiting ``wait_s``."""
    from tests.support.cli import rk

    env = {"RK_DATABASE": NOWHERE, "RK_SERVER_DATABASE_WAIT_S": str(wait_s)}
    return rk("serve-backend", "--data-dir", str(tmp_path / "d"), env=env, cwd=tmp_path)


def test_bad_configuration_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.support.cli import rk

    result = rk("serve-backend", "--port", "70000", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --port must be between 1 and 65535, got 70000"
    ]
    unreachable = start_without_database(tmp_path, wait_s=0)
    assert unreachable.returncode == 2
    assert unreachable.stderr.strip().splitlines()[-1].startswith(NO_DATABASE)


def test_a_postgresql_that_never_comes_is_waited_for_then_one_line(tmp_path: Path) -> None:
    began = time.monotonic()
    unreachable = start_without_database(tmp_path, wait_s=3)
    assert unreachable.returncode == 2
    assert time.monotonic() - began >= 3
    lines = unreachable.stderr.strip().splitlines()
    assert lines[-1].startswith(NO_DATABASE)
    waits = [line for line in lines if "unavailable" in line]
    assert len(waits) >= 2
    assert "trying again in 2 s (server.database_wait_s)" in waits[0]


def test_a_postgresql_that_comes_up_late_is_waited_for(tmp_path: Path) -> None:
    """A backend started before its database (a host booting, a restart of both): it waits
    while the server refuses connections, then migrates and serves."""
    with fresh_database() as dsn:
        parts = urlsplit(dsn)
        net = NetLoop()
        gate = TcpGate(net, free_port(), parts.port or 5432)
        late = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{gate.port}"))
        opens = threading.Timer(3.0, gate.up)
        began = time.monotonic()
        opens.start()
        try:
            with serve(tmp_path, RK_DATABASE=late, RK_SERVER_DATABASE_WAIT_S="60") as served:
                assert time.monotonic() - began >= 3
                assert httpx.get(served.url + "/api/shows").status_code == 200
                output = served.output()
        finally:
            opens.join()
            gate.down()
            net.close()
    assert "unavailable" in output
    assert "trying again in 2 s (server.database_wait_s)" in output


def test_a_native_crash_says_where_before_the_process_dies(tmp_path: Path) -> None:
    """SIGABRT (what a C or Rust library's abort sends) still leaves every thread's Python
    stack in the log: the one clue an operator gets from a process that died silently."""
    with serve(tmp_path) as served:
        assert served.stop(signal.SIGABRT) == -signal.SIGABRT
        output = served.output()
    assert "Fatal Python error: Aborted" in output
    assert "most recent call first" in output
