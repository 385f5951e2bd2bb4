"""docs/api.md's curl + openssl example, run as written against a live backend."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import SECRET

DOC = Path(__file__).resolve().parents[3] / "docs" / "api.md"
FIRST_LINE = "BACKEND=http://127.0.0.1:8092; SECRET=$(cat rk-data/ingest.secret)"

pytestmark = pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("openssl")), reason="needs curl and openssl"
)


def example() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- api-example -->\n```sh\n(.*?)```\n<!-- /api-example -->", text, re.S)
    assert block, "docs/api.md has no api-example block"
    return block.group(1).splitlines()


async def test_curl_and_openssl_example(start_backend: StartBackend) -> None:
    backend = await start_backend()
    lines = example()
    assert lines[0] == FIRST_LINE
    script = "\n".join([f"BACKEND={backend.url}; SECRET={SECRET}", *lines[1:]])
    proc = await asyncio.create_subprocess_exec(
        "bash", "-euo", "pipefail", "-c", script, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0
    ping, claim, refused = out.decode().splitlines()
    assert re.fullmatch(r'\{"time":\d+,"version":"[^"]+"\}', ping)
    assert claim == "204"
    assert refused == (
        '{"error":"signature does not match (is the ingest secret the same on both?)"}'
    )
