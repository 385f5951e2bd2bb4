"""The rk processes of the run, as operators start them: two backends on one PostgreSQL and
one bucket, two serving spiders and one embed worker behind the balancer.

Each process keeps its config, so a fault can kill it and start it again the same way;
``skew_s`` starts a process with its clock shifted by Debian's libfaketime.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.integration.embeddings.backend import TINY_CLIP
from tests.integration.spider.procs import Proc, clean_env, write_config
from tests.support.cli import RK
from tests.support.faketime import faketime_env
from tests.support.net import wait_for_port

SECRET = "system-test-secret-0123456789abcdef"


class RkProc(Proc):
    """A ``Proc`` that may run with its clock ``skew_s`` seconds off."""

    def __init__(self, name: str, args: list[str], root: Path, skew_s: int = 0) -> None:
        super().__init__(args, root / f"{name}.log", root / name)
        self.name = name
        self.skew_s = skew_s
        self.starts = 0

    def start(self) -> RkProc:
        self.terminating = False
        self.cwd.mkdir(parents=True, exist_ok=True)
        env = clean_env()
        if self.skew_s:
            env |= faketime_env(self.skew_s)
        with self.log_path.open("ab") as log:
            log.write(f"--- start {self.starts + 1} skew={self.skew_s:+d}s ---\n".encode())
            log.flush()
            self.popen = subprocess.Popen(
                [RK, *self.args], stdout=log, stderr=subprocess.STDOUT, cwd=self.cwd, env=env
            )
        self.starts += 1
        return self

    def kill9(self) -> None:
        """SIGKILL and reap (the fault), unless it is already gone."""
        if self.alive():
            assert self.popen is not None
            self.popen.kill()
            self.popen.wait(timeout=10)


@dataclass
class Fleet:
    """Where everything is and the processes started from it."""

    root: Path
    dsn: str
    storage: str
    site_url: str
    balancer_url: str
    backend_ports: list[int]
    backends: list[RkProc] = field(default_factory=list)
    spiders: list[RkProc] = field(default_factory=list)
    embedder: RkProc | None = None

    @property
    def endpoint(self) -> str:
        """The ingest endpoint workers are given: the balancer's."""
        return f"{self.balancer_url}/admin/internal/ingest"

    def backend_config(self, n: int) -> Path:
        """Backend ``n``'s config: the shared database, bucket and secret; timeouts shrunk."""
        site_host = self.site_url.split("://", 1)[1].split("/", 1)[0]
        site_port = site_host.rsplit(":", 1)[-1]
        config: dict[str, Any] = {
            "data_dir": str(self.root / f"backend-{n}" / "data"),
            "database": self.dsn,
            "storage": self.storage,
            "server": {"port": self.backend_ports[n], "workers": 2, "shutdown_grace_s": 2},
            "ingest": {"secret": SECRET},
            "security": {"allow_private_hosts": [site_host, f"localhost:{site_port}"]},
            "queues": {
                "crawl_lease_s": 15,
                "ingest_stuck_s": 45,
                "poll_interval_s": 0.5,
                "backoff_base_s": 15,
                "backoff_cap_s": 60,
            },
            "spider": {"timeout_s": 15},
            "vision": {"model": str(TINY_CLIP), "batch": 8, "concurrency": 2},
            "embed": {"pending_lease_s": 30},
        }
        return write_config(self.root / f"backend-{n}.yml", config)

    def worker_config(self, name: str) -> Path:
        """A spider's or the embed worker's config: only the balancer, the secret, the site."""
        config: dict[str, Any] = {
            "data_dir": str(self.root / name / "data"),
            "ingest": {"enabled": True, "endpoint": self.endpoint, "secret": SECRET},
            "media": {"upload": True, "concurrency": 4},
            # Politeness relaxed for a local site; retries and backoff as shipped.
            "spider": {"min_interval_s": 0, "per_host_concurrency": 6, "timeout_s": 15},
            "sources": {"vogue": {"base_url": self.site_url}},
            "vision": {"model": str(TINY_CLIP), "batch": 8, "concurrency": 4},
        }
        return write_config(self.root / f"{name}.yml", config)

    def operator(self, *args: str) -> str:
        """An operator command (``rk brands add``, ``rk crawl add``) on the database."""
        config = write_config(self.root / "operator.yml", {"database": self.dsn})
        done = subprocess.run(
            [RK, *args, "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.root,
            env=clean_env(),
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"rk {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def start_backend(self, n: int) -> RkProc:
        """Start backend ``n`` and wait for its port (the first start applies migrations)."""
        config = self.backend_config(n)
        proc = RkProc(f"backend-{n}", ["serve-backend", "--config", str(config)], self.root)
        proc.start()
        wait_for_port(self.backend_ports[n], 120)
        self.backends.append(proc)
        return proc

    def spider(self, name: str, skew_s: int = 0) -> RkProc:
        """A serving Vogue spider (not started), its clock ``skew_s`` off."""
        args = ["spider", "serve", "--plugin", "vogue", "-w", "2", "-i", "1", "-m", "3"]
        return RkProc(name, [*args, "--config", str(self.worker_config(name))], self.root, skew_s)

    def start_embedder(self) -> RkProc:
        """Start the embed worker (``--loop``, the tiny CLIP)."""
        args = ["spider", "embed", "--kind", "runway", "--loop", "--interval", "1", "-l", "32"]
        config = self.worker_config("embed")
        self.embedder = RkProc("embed", [*args, "--config", str(config)], self.root).start()
        return self.embedder

    def all(self) -> list[RkProc]:
        """Every supervised process."""
        return [*self.backends, *self.spiders, *([self.embedder] if self.embedder else [])]

    def stop(self) -> None:
        """SIGTERM (then SIGKILL) every process still running."""
        for proc in self.all():
            proc.stop()
