"""The console under test in a browser: ``rk serve-backend`` on SQLite with accounts, a server
of generated JPEGs, and signed ingest of shows as a spider sends them.

A test module makes its own ``console`` fixture (module scope) from ``running_console``.
"""

from __future__ import annotations

import hashlib
import http.server
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Page

from rk.core.api.signing import signed_headers
from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest
from tests.integration.public.archive import photo
from tests.integration.spider.procs import RK, Backend, clean_env

SECRET = "browser-admin-secret"
PASSWORD = "a long enough password"


class Console:
    """The backend under test, its image server and its SQLite file."""

    def __init__(self, backend: Backend, images: str) -> None:
        self.backend = backend
        self.url = backend.url
        self.images = images

    def db(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.backend.data_dir / 'rk.sqlite3'}?mode=ro", uri=True)

    def one(self, sql: str, *args: Any) -> Any:
        with self.db() as db:
            row = db.execute(sql, args).fetchone()
        return row[0] if row else None

    def write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Put rows in place that no page makes (neighbour scores, finished crawl tasks)."""
        with sqlite3.connect(self.backend.data_dir / "rk.sqlite3", timeout=30) as db:
            db.executemany(sql, rows)

    def rk(self, *args: str, stdin: str = "") -> None:
        """Run ``rk ARGS`` on this backend's config and data, as its operator would."""
        done = subprocess.run(
            [
                RK,
                *args,
                "--config",
                str(self.backend.config),
                "--data-dir",
                str(self.backend.data_dir),
            ],
            input=stdin,
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def user(self, name: str, role: str) -> None:
        self.rk(
            "admin", "create-user", name, "--role", role, "--password-stdin", stdin=PASSWORD + "\n"
        )

    def brand(self, name: str) -> tuple[str, str]:
        """Add a brand with ``rk brands add``; its (uid, name), as ``ingest`` takes it."""
        self.rk("brands", "add", name)
        return str(self.one("SELECT uid FROM brands WHERE name = ?", name)), name

    def ingest(self, brand: tuple[str, str], key: str, looks: int) -> int:
        """POST a signed show (images on the local image server); the job id."""
        show = ShowIngest(
            source="vogue",
            show_key=key,
            title=f"{brand[1]} {key}",
            brand=BrandRef(uid=brand[0], name=brand[1]),
            season="Spring 2025 Ready-to-Wear",
            city="Paris",
            date="2025-09-30",
            url=f"https://www.vogue.com/fashion-shows/{key}",
            looks=[
                Look(number=n, image=ImageRef(url=f"{self.images}/{key}/{n}.jpg"))
                for n in range(1, looks + 1)
            ],
        )
        body = msgspec.json.encode(show)
        path = "/admin/internal/ingest"
        headers = signed_headers(SECRET, "POST", path, body, None)
        answer = httpx.post(
            f"{self.url}{path}",
            content=body,
            headers={**headers, "content-type": "application/json"},
        )
        assert answer.status_code == 202, answer.text
        return int(answer.json()["job_id"])

    def wait(self, sql: str, *args: Any, timeout_s: float = 60) -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.one(sql, *args)
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"not true within {timeout_s} s: {sql} {args}")


def running_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A backend with an admin and two moderators, and a server of generated JPEGs: a test
    module's ``console`` fixture yields from it."""

    class Images(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = photo(int(hashlib.sha1(self.path.encode()).hexdigest()[:6], 16))
            self.send_response(200)
            self.send_header("content-type", "image/jpeg")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Images)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = tmp_path_factory.mktemp("admin") / "backend"
    backend = Backend(
        root,
        f"sqlite:///{root / 'data' / 'rk.sqlite3'}",
        allow=[f"127.0.0.1:{server.server_address[1]}"],
        ingest={"secret": SECRET},
    ).start()
    try:
        found = Console(backend, f"http://127.0.0.1:{server.server_address[1]}")
        found.user("ada", "admin")
        found.user("mo", "moderator")
        found.user("rl", "moderator")
        yield found
    finally:
        backend.stop()
        server.shutdown()


def sign_in(page: Page, console: Console, name: str, password: str = PASSWORD) -> None:
    page.goto(f"{console.url}/admin/sign-in")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
