"""The README's five-minute walkthrough, run as written (on free ports, in a scratch dir).

Two lines are swapped for what this test environment already has: the venv install (the
README's run command, done by the test setup) and the example plugin's pip install (made
into a directory of its own, so the suite's environment stays as it was). Everything else —
waiting for the port, the spider, the metrics, ``rk doctor`` — runs exactly as pasted.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.net import free_port

ROOT = Path(__file__).resolve().parents[2]
VENV_INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q -e ."
PLUGIN_INSTALL = ".venv/bin/pip install -q ./examples/rk-source-example"


def walkthrough() -> list[str]:
    """The lines of the README block between the walkthrough markers."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- walkthrough -->\n```sh\n(.*?)```\n<!-- /walkthrough -->", text, re.S)
    assert block, "README.md has no walkthrough block"
    return block.group(1).splitlines()


@pytest.fixture
def plugin_path(tmp_path: Path) -> str:
    """The example plugin installed into a directory of its own."""
    target = tmp_path / "plugin"
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
            str(ROOT / "examples" / "rk-source-example"),
        ],
        check=True,
        capture_output=True,
    )
    return str(target)


def test_walkthrough_runs_as_pasted(tmp_path: Path, plugin_path: str) -> None:
    lines = walkthrough()
    assert lines[0] == VENV_INSTALL
    assert PLUGIN_INSTALL in lines
    venv = Path(sys.executable).parent.parent
    script = "\n".join(lines[1:]).replace(PLUGIN_INSTALL, "true  # installed by the test")
    backend, site = free_port(), free_port()
    script = script.replace(":8092", f":{backend}").replace(":8300", f":{site}")
    script = script.replace("--port 8300", f"--port {site}")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv").symlink_to(venv)
    (work / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    env["PYTHONPATH"] = plugin_path
    env["RK_SERVER_PORT"] = str(backend)  # the block's backend listens on the default port
    proc = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        out = "(timed out)"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # whatever the block left running
    logs = {name: (work / name).read_text() for name in ("backend.log", "spider.log")}
    assert proc.returncode == 0, f"{out}\n{logs}"
    assert "task 1 done: status=done submitted 2 shows" in out
    assert "rk_images_stored 5.0" in out
    assert 'rk_crawl_tasks{status="done"} 1.0' in out
    assert len(re.findall(r"rk-data/media/(runway|thumb)/[0-9a-f]{40}\.jpg", out)) == 10
    assert out.rstrip().endswith("all well")
    secret = (work / "rk-data" / "ingest.secret").read_text().strip()
    assert all(secret not in text for text in (out, *logs.values()))
