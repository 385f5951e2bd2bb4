"""``rk db migrate`` as a real subprocess: creates the database, reports, fails in one line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rk.server.platform.db.migrate import discover
from tests.support.cli import RK, rk
from tests.support.net import free_port


def _lines(text: str) -> list[str]:
    return text.strip().splitlines()


def test_migrate_creates_sqlite_file_then_is_up_to_date(tmp_path: Path) -> None:
    data = tmp_path / "data"
    database = data / "rk.sqlite3"
    first = rk("db", "migrate", "--data-dir", str(data))
    assert first.returncode == 0, first.stderr
    assert database.is_file()
    expected = [f"applied {migration.id}" for migration in discover()]
    assert _lines(first.stdout) == [
        *expected,
        f"database migrated: sqlite:///{database} ({len(expected)} applied)",
    ]
    second = rk("db", "migrate", "--data-dir", str(data))
    assert second.returncode == 0, second.stderr
    assert _lines(second.stdout) == [f"database is up to date: sqlite:///{database}"]


def test_garbage_dsn_in_config_is_exit_2_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text('database: "oracle://scott:tiger@db/orcl"\n')
    result = rk("db", "migrate", "--config", str(config))
    assert result.returncode == 2
    assert result.stdout == ""
    assert _lines(result.stderr) == [
        "error: database DSN scheme 'oracle' is not supported;"
        " expected sqlite:///<path> or postgresql://user@host:port/db"
    ]


def test_unreachable_postgres_is_exit_2_one_line_without_password(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "config.yml"
    config.write_text(f'database: "postgresql://rk:tiger@127.0.0.1:{port}/rk"\n')
    result = rk("db", "migrate", "--config", str(config))
    assert result.returncode == 2
    [line] = _lines(result.stderr)
    assert line.startswith(f"error: cannot migrate postgresql://rk:***@127.0.0.1:{port}/rk: ")
    assert "tiger" not in result.stderr + result.stdout


def test_two_processes_migrate_one_database(any_dsn: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    env["RK_DATABASE"] = any_dsn
    procs = [
        subprocess.Popen(
            [RK, "db", "migrate"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    lines = [line for out, _ in outputs for line in out.decode().splitlines()]
    applied = sorted(line.split()[1] for line in lines if line.startswith("applied "))
    assert applied == [migration.id for migration in discover()]
