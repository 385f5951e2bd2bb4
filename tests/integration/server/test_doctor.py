"""``rk doctor`` as a subprocess against real databases, storage and a running backend."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import onnxruntime
import pytest
import yaml

from rk.cli.doctor_checks import skew_finding
from rk.server.platform.db.tables import IngestJob
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import SECRET, backend_settings
from tests.support.cli import RK
from tests.support.net import free_port

TINY_CLIP = Path(__file__).parents[2] / "models" / "tiny_clip"


def write_config(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / f"doctor-{len(list(tmp_path.glob('doctor-*')))}.yml"
    path.write_text(yaml.safe_dump(config))
    return path


async def doctor(tmp_path: Path, config: dict, *args: str) -> tuple[int, list[str]]:
    """``rk doctor -c <config>`` (run without blocking the backend's event loop)."""
    path = write_config(tmp_path, config)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    proc = await asyncio.create_subprocess_exec(
        RK, "doctor", "-c", str(path), *args, stdout=asyncio.subprocess.PIPE, env=env, cwd=tmp_path
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode().splitlines()


def status(lines: list[str], name: str) -> str:
    """``ok`` or ``PROBLEM`` and the rest of the line for the check ``name``."""
    [found] = [line for line in lines if line.split(None, 1)[1].startswith(f"{name}: ")]
    return found


async def test_embedded_default_before_and_after_first_start(
    tmp_path: Path, start_backend: StartBackend
) -> None:
    config = {"data_dir": str(tmp_path / "data")}
    code, lines = await doctor(tmp_path, config)
    assert code == 1
    assert status(lines, "database").startswith("PROBLEM  database: sqlite:///")
    assert "no database file yet -> start rk serve-backend" in status(lines, "database")
    assert lines[-1] == "1 problem"
    assert "warning  storage: file://" in status(lines, "storage")
    assert "no media folder yet" in status(lines, "storage")
    assert not (tmp_path / "data").exists()  # the doctor creates nothing

    await start_backend(backend_settings(tmp_path))  # same data dir: creates and migrates
    code, lines = await doctor(tmp_path, config)
    assert code == 0, lines
    assert status(lines, "migrations") == "ok       migrations: all applied"
    assert "wrote, read and deleted a probe object" in status(lines, "storage")
    assert not list((tmp_path / "data" / "media").rglob("*.jpg"))  # the probe is gone
    assert lines[-1] == "all well"


async def test_bad_config_is_a_problem_line(tmp_path: Path) -> None:
    code, lines = await doctor(tmp_path, {"server": {"port": "eighty"}})
    assert code == 1
    assert status(lines, "config").startswith("PROBLEM  config: ")
    assert "server.port" in lines[0]


@pytest.mark.postgres
async def test_postgresql_migrations_and_pgvector(
    tmp_path: Path, start_backend: StartBackend, pg_dsn: str
) -> None:
    await start_backend(backend_settings(tmp_path, database=pg_dsn))
    [last] = await IngestJob.raw("SELECT MAX(id) AS id FROM rk_migrations")
    await IngestJob.raw("DELETE FROM rk_migrations WHERE id = {}", last["id"])
    vector = await IngestJob.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    code, lines = await doctor(tmp_path, {"database": pg_dsn, "data_dir": str(tmp_path / "d")})
    assert code == 1
    assert status(lines, "database").startswith("ok       database: postgresql://")
    assert f"migrations not applied ({last['id']}): run rk db migrate" in status(
        lines, "migrations"
    )
    [version] = await IngestJob.raw("SELECT current_setting('server_version_num') AS num")
    if not vector:
        assert "PROBLEM  pgvector: this PostgreSQL server has no pgvector" in status(
            lines, "pgvector"
        )
        major = int(version["num"]) // 10000
        assert f"apt install postgresql-{major}-pgvector" in status(lines, "pgvector")


async def test_unreachable_database_and_storage_are_named_without_secrets(tmp_path: Path) -> None:
    port = free_port()
    config = {
        "database": f"postgresql://rk:db-pass-123@127.0.0.1:{port}/rk",
        "storage": f"s3://b/p?endpoint=http://127.0.0.1:{port}&access_key_id=A"
        "&secret_access_key=s3-key-456",
    }
    code, lines = await doctor(tmp_path, config)
    assert code == 1
    assert status(lines, "database").startswith(
        f"PROBLEM  database: postgresql://rk:***@127.0.0.1:{port}/rk unreachable"
    )
    assert status(lines, "storage").startswith("PROBLEM  storage: s3://b/p: ")
    assert "db-pass-123" not in "\n".join(lines)
    assert "s3-key-456" not in "\n".join(lines)


async def test_spider_side_secret_and_clock(tmp_path: Path, start_backend: StartBackend) -> None:
    backend = await start_backend()
    endpoint = f"{backend.url}/admin/internal/ingest"
    spider = {"ingest": {"enabled": True, "endpoint": endpoint, "secret": SECRET}}
    code, lines = await doctor(tmp_path, spider)
    assert code == 0, lines
    assert status(lines, "ingest secret").startswith(
        f"ok       ingest secret: signed ping to {endpoint}"
    )
    assert "signatures allow ±300 s" in status(lines, "clock")
    assert not any(line.split(None, 1)[1].startswith("database") for line in lines[:-1])

    spider["ingest"]["secret"] = "not-the-secret"
    code, lines = await doctor(tmp_path, spider)
    assert code == 1
    assert "PROBLEM  ingest secret: backend rejected the signature" in status(
        lines, "ingest secret"
    )

    spider["ingest"]["endpoint"] = f"http://127.0.0.1:{free_port()}/admin/internal/ingest"
    code, lines = await doctor(tmp_path, spider)
    assert code == 1
    assert status(lines, "clock").startswith("PROBLEM  clock: cannot read the backend's clock")
    assert "backend unreachable" in status(lines, "ingest secret")


async def test_a_spider_without_a_contact_is_warned_not_failed(
    tmp_path: Path, start_backend: StartBackend
) -> None:
    backend = await start_backend()
    endpoint = f"{backend.url}/admin/internal/ingest"
    spider: dict = {"ingest": {"enabled": True, "endpoint": endpoint, "secret": SECRET}}
    code, lines = await doctor(tmp_path, spider)
    assert code == 0, lines
    assert status(lines, "contact").startswith(
        "warning  contact: spider.contact is not set: sites see User-Agent 'rk/"
    )
    assert status(lines, "contact").endswith(
        "-> set spider.contact to a URL or e-mail address where a site can reach you"
    )
    assert lines[-1] == "all well"

    spider["spider"] = {"contact": "crawler@archive.example.org"}
    code, lines = await doctor(tmp_path, spider)
    assert code == 0, lines
    assert status(lines, "contact").startswith("ok       contact: sites see User-Agent 'rk/")
    assert "(+crawler@archive.example.org)'" in status(lines, "contact")

    backend_only = await doctor(tmp_path, {"data_dir": str(tmp_path / "d")}, "--role", "backend")
    assert not any(" contact: " in line for line in backend_only[1])


async def test_model_and_execution_provider(tmp_path: Path) -> None:
    code, lines = await doctor(tmp_path, {"vision": {"model": str(TINY_CLIP)}}, "--role", "spider")
    assert status(lines, "ingest").startswith("PROBLEM  ingest: ingest.endpoint is not set -> ")
    assert status(lines, "model").startswith("ok       model: ")
    assert "on CPUExecutionProvider" in status(lines, "model")

    cuda = {"vision": {"model": str(TINY_CLIP), "providers": ["CUDAExecutionProvider"]}}
    code, lines = await doctor(tmp_path, cuda, "--role", "spider")
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        assert "PROBLEM  model: CUDA asked for but not given" in status(lines, "model")
    assert code == 1


def test_clock_skew_threshold() -> None:
    assert skew_finding(12.4, 300).ok
    assert skew_finding(-12, 300).detail == "-12 s against the backend (signatures allow ±300 s)"
    late = skew_finding(-200, 300)
    assert not late.ok
    assert "NTP" in late.fix
