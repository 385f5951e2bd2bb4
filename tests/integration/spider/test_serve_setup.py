"""``rk spider serve`` refuses a setup that cannot work (exit 2, one line) and waits out an
unreachable backend instead of exiting.
"""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.integration.spider.conftest import E2E, SECRET
from tests.integration.spider.procs import clean_env, spider, spider_config, write_config
from tests.support.cli import RK
from tests.support.faketime import faketime_env
from tests.support.net import free_port


def serve(
    config: Path, *options: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``rk spider serve`` to completion (it must exit by itself); ``env`` is added."""
    args = [RK, "spider", "serve", "--plugin", "vogue", "--config", str(config), *options]
    return subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean_env(), **(env or {})},
        check=False,
    )


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("error:")]


@pytest.mark.parametrize(
    ("ingest", "options", "message"),
    [
        ({"enabled": False}, (), "ingest.enabled is false"),
        (
            {"enabled": True, "endpoint": "http://127.0.0.1:9/admin/internal/ingest"},
            (),
            "ingest.secret is empty",
        ),
        (
            {"enabled": True, "endpoint": "http://127.0.0.1:9/ingest-no", "secret": "s"},
            (),
            "ingest.endpoint must be",
        ),
        ({"enabled": True}, ("-i", "0.5"), "--interval 0.5 is too short"),
        ({"enabled": True}, ("--plugin", "nosuch"), "no source named 'nosuch'"),
    ],
)
def test_bad_setup_exits_2_with_one_line(
    tmp_path: Path, ingest: dict, options: tuple[str, ...], message: str
) -> None:
    config = write_config(tmp_path / "config.yml", {"ingest": ingest})
    done = serve(config, *options)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == error_lines(done)
    [line] = error_lines(done)
    assert message in line


async def test_wrong_secret_exits_2_and_says_so(e2e_sqlite: E2E) -> None:
    backend = e2e_sqlite.backend()
    config = spider_config(
        e2e_sqlite.root, "spider", backend.endpoint, "not-the-secret", e2e_sqlite.site.base_url
    )
    done = serve(config, "-w", "3")
    assert done.returncode == 2
    [line] = error_lines(done)
    assert "ingest.secret differs from the backend's secret" in line
    assert "Traceback" not in done.stderr


async def test_clock_outside_the_signature_window_exits_2_and_names_the_clock(
    e2e_sqlite: E2E,
) -> None:
    backend = e2e_sqlite.backend()
    config = spider_config(
        e2e_sqlite.root, "spider", backend.endpoint, SECRET, e2e_sqlite.site.base_url
    )
    done = serve(config, env=faketime_env(400))
    assert done.returncode == 2
    [line] = error_lines(done)
    # The backend's Date header has whole seconds and uvicorn refreshes it once a second from
    # its main loop, so on a loaded machine the skew read from it is 400 give or take a few.
    found = re.search(r"this machine's clock is \+(\d+) s off the backend's; sync", line)
    assert found is not None, line
    assert abs(int(found.group(1)) - 400) <= 5
    assert "ingest.secret differs" not in line


async def test_unreachable_backend_is_retried_not_fatal(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/admin/internal/ingest"
    config = spider_config(tmp_path, "spider", endpoint, "s", "http://127.0.0.1:9")
    proc = spider(tmp_path, "spider", config, "-w", "1", "-i", "1").start()
    try:
        await proc.wait_for(r"claim: backend unreachable at .*; retrying \(attempt 1\)")
        assert proc.alive()
        proc.send(signal.SIGTERM)
        assert await proc.wait() == 0
    finally:
        proc.stop()
    assert "Traceback" not in proc.log()
