"""The third-party example plugin, installed as its own distribution, crawled end to end.

``examples/rk-source-example`` is pip-installed into a directory of its own (no change to
rk, nothing added to rk's environment); its demo site runs from that install, and
``rk spider serve --plugin example`` finds it through the ``rk`` entry point, claims the
task an operator queued with ``rk crawl add --source example``, and the backend archives
every show of the designer.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from rk.server.platform.db.tables import Image
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E, SECRET
from tests.integration.spider.procs import Backend, clean_env, eventually
from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "rk-source-example"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment in which the example plugin is installed (PYTHONPATH to its install)."""
    target = tmp_path_factory.mktemp("example-plugin")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(EXAMPLE),
        ],
        check=True,
        capture_output=True,
    )
    return {**clean_env(), "PYTHONPATH": str(target)}


@pytest.fixture
def demo_site(installed: dict[str, str]) -> Iterator[str]:
    """The demo lookbook the plugin ships, served by its own module."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rk_source_example.demo_site", "--port", str(port)],
        env=installed,
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def queue_with_operator_commands(backend: Backend, env: dict[str, str]) -> None:
    """``rk brands add`` and ``rk crawl add --source example`` on the backend's database."""
    args = ["--config", str(backend.config), "--data-dir", str(backend.data_dir)]
    for command in (
        ["brands", "add", "Maison Aurele"],
        ["crawl", "add", "Maison Aurele", "--source", "example"],
    ):
        done = subprocess.run([RK, *command, *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def spider_config(tmp_path: Path, endpoint: str, site: str) -> Path:
    """The spider machine's config.yml: the backend, its secret, the demo site's URL."""
    config = tmp_path / "spider" / "config.yml"
    config.parent.mkdir()
    settings = {
        "ingest": {"enabled": True, "endpoint": endpoint, "secret": SECRET},
        "spider": {"min_interval_s": 0, "retries": 1},
        "sources": {"example": {"base_url": site}},
    }
    config.write_text(yaml.safe_dump(settings))
    return config


def start_spider(config: Path, log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``rk spider serve --plugin example`` writing to ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [RK, "spider", "serve", "--plugin", "example", "-i", "1", "--config", str(config)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


async def test_example_plugin_crawled_into_the_archive(
    e2e_sqlite: E2E, installed: dict[str, str], demo_site: str, tmp_path: Path
) -> None:
    backend = e2e_sqlite.backend(sites=[demo_site])
    queue_with_operator_commands(backend, installed)
    log = tmp_path / "spider.log"
    spider = start_spider(spider_config(tmp_path, backend.endpoint, demo_site), log, installed)
    try:

        async def crawled() -> list[dict] | None:
            tasks = await archive.all_tasks()
            return tasks if tasks and tasks[0]["status"] in ("done", "failed") else None

        [task] = await eventually(crawled, "the example task finished")
        assert (task["status"], task["shows_submitted"]) == ("done", 2), log.read_text()
        await eventually(archive.jobs_done, "every ingest job finished")
    finally:
        spider.terminate()
        spider.wait(timeout=30)
    articles = {row["show_key"]: row for row in await archive.articles()}
    assert set(articles) == {"shows/maison-aurele-spring-2025", "shows/maison-aurele-fall-2024"}
    assert {row["source"] for row in articles.values()} == {"example"}
    spring = articles["shows/maison-aurele-spring-2025"]
    assert spring["title"] == "Maison Aurele Spring 2025"
    images = await Image.select().where(Image.article_id == spring["id"]).order_by(Image.position)
    assert [row["position"] for row in images] == [1, 2, 3]
    site_files = EXAMPLE / "src" / "rk_source_example" / "site" / "shows"
    for row in images:
        look = site_files / "maison-aurele-spring-2025" / f"look-{row['position']}.jpg"
        assert backend.media_path(row["key"]).read_bytes() == look.read_bytes()
