"""A PostgreSQL cluster of the test's own (port, data directory), so it can be stopped and
started without touching the shared server on 5432.

Debian's binaries (``/usr/lib/postgresql/<v>/bin``) refuse to run as root; as root the test
runs them as the ``postgres`` user, in a directory that user owns.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.net import wait_for_port

PG_ROOT = Path("/usr/lib/postgresql")


def pg_bin() -> Path:
    """The newest installed PostgreSQL's bin directory."""
    versions = sorted(
        (p for p in PG_ROOT.glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(p.parent.name),
    )
    if not versions:
        raise RuntimeError(f"no PostgreSQL binaries under {PG_ROOT}")
    return versions[-1]


class PgCluster:
    """initdb once, then ``start``/``stop`` at will; ``dsn`` names database ``rk``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.bin = pg_bin()
        self.root = Path(tempfile.mkdtemp(prefix="rk-system-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._user = "postgres" if os.geteuid() == 0 else None
        if self._user:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.dsn = f"postgresql://postgres@127.0.0.1:{port}/rk"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._user:
            command = ["runuser", "-u", self._user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)

    def init(self) -> None:
        """A new cluster with trust auth on 127.0.0.1, settings for a short test."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.root}'\nmax_connections = 200\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            )
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "rk")

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")
        wait_for_port(self.port, 60)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnect clients, ``immediate``: like a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False)

    def destroy(self) -> None:
        """Stop and remove the whole cluster."""
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
