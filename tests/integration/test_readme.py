"""The README's five-minute walkthrough, run as written (on free ports, in a scratch dir).

Two lines are swapped for what this test environment already has: the venv install (the
README's run command, done by the test setup) and the example plugin's pip install (made
into a directory of its own, so the suite's environment stays as it was). Everything else —
waiting for the port, the spider, the metrics, ``rk doctor`` — runs exactly as pasted. Run
again with the backend's port already taken, the block must give up at its first wait.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.net import free_port

ROOT = Path(__file__).resolve().parents[2]
VENV_INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q -e ."
PLUGIN_INSTALL = ".venv/bin/pip install -q ./examples/rk-source-example"


def sh_blocks() -> list[str]:
    """Every ``sh`` block of the README."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def test_every_wait_in_the_readme_has_a_bound() -> None:
    """No open-ended ``until``/``while`` loop: waits go through ``wait_for SECONDS …``."""
    blocks = sh_blocks()
    assert blocks
    for block in blocks:
        assert not re.search(r"^\s*(until|while)\b", block, re.M), block
        for call in re.findall(r"^wait_for .*", block, re.M):
            assert re.match(r"wait_for \d+ \$\w+ \"[^\"]*see \S+\.log", call), call


def test_no_readme_block_writes_the_secret_into_a_file() -> None:
    """A line that reads the secret file keeps what it read in the shell, never in a file."""
    for block in sh_blocks():
        for line in block.splitlines():
            if "ingest.secret" in line and "secret_file:" not in line:
                assert not re.search(r">|\btee\b", line), line


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


BLOCK_TIMEOUT_S = 900
"""Past the sum of the block's own bounds (its waits give up after 120 + 180 + 120 s): the
test relies on those, this only keeps a broken block from holding the suite for ever."""


def run_block(work: Path, plugin_path: str, backend: int) -> tuple[int | None, str]:
    """The walkthrough run in ``work`` with its backend on ``backend``: exit status, output."""
    lines = walkthrough()
    assert lines[0] == VENV_INSTALL
    assert PLUGIN_INSTALL in lines
    venv = Path(sys.executable).parent.parent
    script = "\n".join(lines[1:]).replace(PLUGIN_INSTALL, "true  # installed by the test")
    site = free_port()
    script = script.replace(":8092", f":{backend}").replace(":8300", f":{site}")
    script = script.replace("--port 8300", f"--port {site}")
    work.mkdir()
    (work / ".venv").symlink_to(venv)
    (work / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [plugin_path, os.environ.get("PYTHONPATH")]))
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
        out, _ = proc.communicate(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        out = "(timed out)"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # whatever the block left running
    return proc.returncode, out


def written_by_the_block(work: Path) -> list[str]:
    """The names the block created in its directory (not the test's links)."""
    return sorted(p.name for p in work.iterdir() if p.name not in {".venv", "examples"})


@pytest.mark.timeout(BLOCK_TIMEOUT_S + 60)
def test_walkthrough_runs_as_pasted(tmp_path: Path, plugin_path: str) -> None:
    work = tmp_path / "work"
    returncode, out = run_block(work, plugin_path, free_port())
    logs = {name: (work / name).read_text() for name in ("backend.log", "spider.log")}
    assert returncode == 0, f"{out}\n{logs}"
    assert "task 1 done: status=done submitted 2 shows" in out
    assert "rk_images_stored 5.0" in out
    assert 'rk_crawl_tasks{status="done"} 1.0' in out
    assert len(re.findall(r"rk-data/media/(runway|thumb)/[0-9a-f]{40}\.jpg", out)) == 10
    assert out.rstrip().endswith("all well")
    assert "walkthrough:" not in out
    secret = (work / "rk-data" / "ingest.secret").read_text().strip()
    assert all(secret not in text for text in (out, *logs.values()))
    written = written_by_the_block(work)
    assert written == ["backend.log", "rk-data", "site.log", "spider.log", "spider.yml"]
    files = [work / name for name in written if (work / name).is_file()]
    assert all(secret not in path.read_text() for path in files), "a secret written to a file"
    assert "secret_file: rk-data/ingest.secret" in (work / "spider.yml").read_text()
    paths = [f"{name}/" if (work / name).is_dir() else name for name in written]
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", *paths],
        capture_output=True,
        text=True,
    )
    assert sorted(ignored.stdout.split()) == paths, ".gitignore misses some of the block's files"


class Occupant(BaseHTTPRequestHandler):
    """Whatever already holds the port: answers 200 to everything, ``/readyz`` included."""

    def do_GET(self) -> None:
        """200 with a body, as another backend's ``/readyz`` would."""
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads the block's output, not this server's."""


@pytest.mark.timeout(BLOCK_TIMEOUT_S + 60)
def test_walkthrough_gives_up_on_a_taken_port_naming_the_log(
    tmp_path: Path, plugin_path: str
) -> None:
    """Another server on the backend's port (answering ``/readyz``): the block's own backend
    cannot bind and exits; the first wait gives up with its line instead of waiting for ever."""
    occupant = ThreadingHTTPServer(("127.0.0.1", free_port()), Occupant)
    thread = threading.Thread(target=occupant.serve_forever, daemon=True)
    thread.start()
    work = tmp_path / "work"
    try:
        returncode, out = run_block(work, plugin_path, occupant.server_address[1])
    finally:
        occupant.shutdown()
        occupant.server_close()
    backend_log = (work / "backend.log").read_text()
    assert returncode not in (0, None), out
    assert re.search(
        r"^walkthrough: process \d+ exited: the backend is not serving: see backend\.log",
        out,
        re.M,
    ), out
    assert "address already in use" in backend_log
    assert not (work / "spider.log").exists(), "a spider was started against the other server"
