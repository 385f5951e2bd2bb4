"""The demo world the screenshots are taken in: a real backend, an image server, an archive.

``rk serve-backend`` runs as operators run it, on the embedded default (SQLite + files)
in a temporary directory; shows reach it through the signed ingest API from a local image
server, and the ingest worker stores them as it would any crawl.
"""

from __future__ import annotations

import http.server
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import yaml

from rk.core.api.signing import signed_headers
from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest
from scripts.shots.looks import look_jpeg

RK = str(Path(sys.executable).with_name("rk"))
SECRET = "screenshots-demo-secret"
INGEST = "/admin/internal/ingest"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout_s: float = 60.0) -> None:
    """Block until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout_s} s")


@contextmanager
def image_server(photos: dict[str, bytes]) -> Iterator[str]:
    """Serve ``photos`` (path → JPEG bytes) on 127.0.0.1; yields the base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = photos.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class World:
    """A running backend with its config, data dir and the demo archive's ids."""

    root: Path
    photos: dict[str, bytes]
    image_base: str = ""
    port: int = field(default_factory=free_port)
    brands: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    """Extra config.yml sections (e.g. ``vision``); a page set may set them and restart."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def config(self) -> Path:
        return self.root / "config.yml"

    def start(self, image_base: str) -> None:
        """Write the config and start ``rk serve-backend``; returns once it listens."""
        self.image_base = image_base
        image_host = image_base.split("//", 1)[1]
        config = {
            "server": {"workers": 2},
            "ingest": {"secret": SECRET},
            "security": {"allow_private_hosts": [image_host.split("/", 1)[0]]},
            "queues": {"poll_interval_s": 0.1},
            **self.settings,
        }
        self.config.write_text(yaml.safe_dump(config), encoding="utf-8")
        log = (self.root / "backend.log").open("ab")
        self.process = subprocess.Popen(
            [
                RK,
                "serve-backend",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
                "--config",
                str(self.config),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.root,
        )
        wait_for_port(self.port)

    def stop(self) -> None:
        """Stop the backend (SIGTERM, then SIGKILL after 15 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def rk(self, *args: str, stdin: str | None = None) -> str:
        """An operator command against this backend's database; its stdout (fails loudly)."""
        done = subprocess.run(
            [RK, *args, "--config", str(self.config), "--data-dir", str(self.data_dir)],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.root,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"rk {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def add_brand(self, name: str, slug: str) -> str:
        """``rk brands add``; the new brand's uid."""
        out = self.rk("brands", "add", name, "--slug", f"vogue={slug}")
        match = re.search(r"uid=(\S+)", out)
        if match is None:
            raise RuntimeError(f"no uid in {out!r}")
        self.brands[name] = match.group(1)
        return match.group(1)

    def photo(self, path: str, seed: int) -> str:
        """Publish a generated look on the image server; its URL."""
        self.photos[path] = look_jpeg(seed)
        return f"{self.image_base}{path}"

    def submit(self, show: ShowIngest) -> int:
        """POST a show to the signed ingest API; the job id."""
        body = msgspec.json.encode(show)
        headers = signed_headers(SECRET, "POST", INGEST, body, None)
        answer = httpx.post(
            f"{self.url}{INGEST}",
            content=body,
            headers={**headers, "Content-Type": "application/json"},
            timeout=30,
        )
        answer.raise_for_status()
        return int(answer.json()["job_id"])

    def db(self) -> sqlite3.Connection:
        """A read-only view of the backend's SQLite database."""
        path = self.data_dir / "rk.sqlite3"
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def wait_for_jobs(self, timeout_s: float = 300.0) -> None:
        """Block until no ingest job is pending or processing."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.db() as db:
                (busy,) = db.execute(
                    "SELECT count(*) FROM ingest_jobs WHERE status IN ('pending', 'processing')"
                ).fetchone()
            if busy == 0:
                return
            time.sleep(0.3)
        raise TimeoutError("ingest jobs did not finish")


MODELS = ("Ines Calder", "Marit Solberg", "Adaeze Okafor", "Lucía Ferrer", "Yuna Sato")
"""Invented model names for the demo looks."""


def runway_show(
    world: World,
    brand: str,
    season: str,
    city: str,
    looks: int,
    *,
    seed: int,
    details: int = 0,
    missing: tuple[int, ...] = (),
) -> ShowIngest:
    """A runway show of ``looks`` generated looks (``missing`` look numbers answer 404)."""
    slug = re.sub(r"[^a-z0-9]+", "-", brand.lower()).strip("-")
    season_slug = re.sub(r"[^a-z0-9]+", "-", season.lower()).strip("-")
    key = f"{season_slug}/{slug}"
    refs = []
    for number in range(1, looks + 1):
        path = f"/{key}/look-{number}.jpg"
        url = f"{world.image_base}{path}" if number in missing else world.photo(path, seed + number)
        model = MODELS[(seed + number) % len(MODELS)]
        refs.append(Look(number=number, image=ImageRef(url=url), model_name=model))
    # As Vogue's slideshow links them: two details per look (looks 1, 4, 7, …); the last
    # detail of a show with several is linked to none.
    extra = [
        ImageRef(
            url=world.photo(f"/{key}/detail-{n}.jpg", seed + 500 + n),
            look=(n - 1) // 2 * 3 + 1 if n < details or details == 1 else None,
        )
        for n in range(1, details + 1)
    ]
    return ShowIngest(
        source="vogue",
        kind="runway",
        show_key=key,
        title=f"{brand} {season}",
        brand=BrandRef(uid=world.brands[brand], name=brand),
        season=season,
        city=city,
        date="2025-09-30",
        url=f"https://www.vogue.com/fashion-shows/{key}",
        designer=brand,
        author="Demo Reviewer",
        looks=refs,
        details=extra,
    )
