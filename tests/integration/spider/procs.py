"""Real ``rk`` processes for end-to-end tests: the backend, serving spiders, operator commands.

Each process gets its own config.yml in the test's tmp dir and writes its output to a log
file the test reads (log lines are part of the contract: ``[serve] … claimed task=…``).
Waiting helpers poll a condition with a deadline so a broken run fails with a message
instead of hanging; no test asserts on how long anything took.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port

T = TypeVar("T")
LEASE_S = 2
CLAIMED = re.compile(r"\[serve\] (\S+) claimed task=(\d+) ")
DONE = re.compile(r"\[serve\] (\S+) task (\d+) done: status=(\w+) submitted (\d+) shows")


def clean_env() -> dict[str, str]:
    """The environment without any RK_* setting of the developer's."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RK_")}


def write_config(path: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as a config.yml at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


async def eventually(
    check: Callable[[], Awaitable[T | None]], what: str, timeout_s: float = 30.0
) -> T:
    """Poll ``check()`` until it returns something truthy; AssertionError after the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    last: T | None = None
    while loop.time() < deadline:
        last = await check()
        if last:
            return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what} (last: {last!r})")


class Proc:
    """One ``rk`` subprocess with stdout and stderr in ``log_path``."""

    def __init__(self, args: list[str], log_path: Path, cwd: Path) -> None:
        self.args = args
        self.log_path = log_path
        self.cwd = cwd
        self.popen: subprocess.Popen[bytes] | None = None
        self.terminating = False

    def start(self) -> Proc:
        self.terminating = False
        cwd = self.cwd
        cwd.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.popen = subprocess.Popen(
                [RK, *self.args], stdout=log, stderr=subprocess.STDOUT, cwd=cwd, env=clean_env()
            )
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def send(self, signum: int) -> None:
        """Send a signal (SIGINT, SIGTERM, SIGKILL) to the process."""
        assert self.popen is not None
        self.popen.send_signal(signum)
        self.terminating = signum in (signal.SIGINT, signal.SIGTERM)

    async def wait(self, timeout_s: float = 30.0) -> int:
        """The exit code, waiting at most ``timeout_s``."""
        assert self.popen is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while (code := self.popen.poll()) is None:
            assert loop.time() < deadline, f"rk {' '.join(self.args[:2])} did not exit"
            await asyncio.sleep(0.05)
        return code

    def stop(self) -> None:
        """Terminate (then kill) the process if it still runs; used at teardown."""
        if self.popen is None or self.popen.poll() is not None:
            return
        if not self.terminating:
            self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait_for(self, pattern: str, timeout_s: float = 30.0) -> re.Match[str]:
        """The first match of ``pattern`` in the log, once it is there."""
        regex = re.compile(pattern)

        async def found() -> re.Match[str] | None:
            return regex.search(self.log())

        return await eventually(found, f"{pattern!r} in {self.log_path.name}", timeout_s)


class Backend(Proc):
    """``rk serve-backend`` on its own port and data dir, with every queue timeout shrunk."""

    def __init__(self, root: Path, dsn: str, allow: Sequence[str] = (), **settings: Any) -> None:
        self.port = int(settings.pop("port", 0) or free_port())
        self.data_dir = root / "data"
        self.url = f"http://127.0.0.1:{self.port}"
        self.endpoint = f"{self.url}/admin/internal/ingest"
        config: dict[str, Any] = {
            "database": dsn,
            "server": {"workers": 2, "shutdown_grace_s": 2},
            "security": {"allow_private_hosts": list(allow)},
            "queues": {"crawl_lease_s": LEASE_S, "poll_interval_s": 0.2, "backoff_base_s": 1},
            "spider": {"timeout_s": 5, "retries": 1, "min_interval_s": 0},
        }
        for section, values in settings.items():
            config.setdefault(section, {}).update(values)
        self.config = write_config(root / "backend.yml", config)
        args = ["serve-backend", "--port", str(self.port), "--data-dir", str(self.data_dir)]
        super().__init__([*args, "--config", str(self.config)], root / "backend.log", root)

    def start(self) -> Backend:
        super().start()
        wait_for_port(self.port)
        return self

    def media_path(self, key: str) -> Path:
        """Where ``file://`` storage keeps ``key``."""
        return self.data_dir / "media" / key

    def rk(self, *args: str, timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
        """An operator command (``rk brands …``, ``rk crawl …``) against this backend's DB;
        ``timeout_s`` is a hang guard, longer for commands that work through every image."""
        return subprocess.run(
            [RK, *args, "--config", str(self.config), "--data-dir", str(self.data_dir)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            cwd=self.cwd,
            env=clean_env(),
            check=False,
        )

    def ok(self, *args: str, timeout_s: float = 60) -> str:
        """An operator command that must succeed; its stdout."""
        done = self.rk(*args, timeout_s=timeout_s)
        assert done.returncode == 0, f"rk {' '.join(args)}: {done.stderr}"
        return done.stdout


def spider_config(
    root: Path, name: str, endpoint: str, secret: str, site_url: str, **settings: Any
) -> Path:
    """A serving spider's config.yml: ingest on, direct upload on, politeness relaxed."""
    config: dict[str, Any] = {
        "ingest": {"enabled": True, "endpoint": endpoint, "secret": secret},
        "media": {"upload": True, "concurrency": 4},
        "spider": {
            "min_interval_s": 0,
            "per_host_concurrency": 8,
            "retries": 1,
            "backoff_base_s": 0.05,
            "show_retry_s": 0.2,
            "timeout_s": 10,
        },
        "sources": {"vogue": {"base_url": site_url}},
    }
    for section, values in settings.items():
        config.setdefault(section, {}).update(values)
    return write_config(root / name / "config.yml", config)


def spider(root: Path, name: str, config: Path, *options: str) -> Proc:
    """``rk spider serve --plugin vogue`` (not started) with ``options`` (default -w 2 -i 1)."""
    args = ["spider", "serve", "--plugin", "vogue", "--config", str(config)]
    return Proc(
        [*args, *(options or ("-w", "2", "-i", "1", "-m", "3"))], root / f"{name}.log", root / name
    )


def claims(*logs: str) -> list[tuple[str, int]]:
    """``(worker, task id)`` for every claim line in the given spider logs."""
    return [(m.group(1), int(m.group(2))) for log in logs for m in CLAIMED.finditer(log)]


def reports(*logs: str) -> list[tuple[str, int, str, int]]:
    """``(worker, task id, status, shows)`` for every reported result in the logs."""
    return [
        (m.group(1), int(m.group(2)), m.group(3), int(m.group(4)))
        for log in logs
        for m in DONE.finditer(log)
    ]
