"""``rk vision serve`` as a real process on a free port, spoken to over HTTP."""

from __future__ import annotations

import base64
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.models import samples
from tests.support.cli import RK, rk
from tests.support.net import free_port, wait_for_port

REF = samples.reference()
NAMES = list(REF["images"])
MAX_BODY_MB = 0.05  # 52 KB: the test images are about 1 KB each


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The vision service on the tiny CLIP; its base URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    cwd = tmp_path_factory.mktemp("vision")
    log = (cwd / "service.log").open("w")
    command = [RK, "vision", "serve", "--port", str(port), "--model", str(samples.TINY_CLIP)]
    process = subprocess.Popen(
        [*command, "--max-body-mb", str(MAX_BODY_MB), "--provider", "cpu"],
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_embeds_the_decodable_images_and_lists_the_rest(service: str) -> None:
    images = [samples.image_bytes(name) for name in NAMES] + [samples.HTML, b""]
    response = httpx.post(f"{service}/embed", json={"images": [b64(i) for i in images]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"dim", "vectors", "indexes", "skipped"}
    assert body["dim"] == 16
    assert body["indexes"] == [0, 1, 2]
    assert body["skipped"] == [3, 4]
    for vector, name in zip(body["vectors"], NAMES, strict=True):
        np.testing.assert_allclose(vector, REF["images"][name], atol=1e-4)


def test_an_empty_list_is_an_empty_answer(service: str) -> None:
    response = httpx.post(f"{service}/embed", json={"images": []})
    assert response.status_code == 200
    assert response.json() == {"dim": 16, "vectors": [], "indexes": [], "skipped": []}


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"", "empty body"),
        (b"{not json", "bad /embed body"),
        (b'{"imgs": []}', "bad /embed body"),
        (b'{"images": "aGVsbG8="}', "bad /embed body"),
        (b'{"images": [1, 2]}', "bad /embed body"),
        (b'{"images": ["aGVsbG8=", "%%%not base64%%%"]}', r"images\[1\] is not valid base64"),
    ],
    ids=["empty", "not-json", "wrong-key", "not-a-list", "not-strings", "bad-base64"],
)
def test_bad_input_is_a_400_with_one_line(service: str, body: bytes, match: str) -> None:
    response = httpx.post(
        f"{service}/embed", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert "\n" not in error
    assert re.search(match, error), error


def test_a_body_over_the_limit_is_413(service: str) -> None:
    big = b64(samples.noise_jpeg(200, 200)) * 4
    assert len(big) > MAX_BODY_MB * 1024 * 1024
    response = httpx.post(f"{service}/embed", json={"images": [big]})
    assert response.status_code == 413
    assert response.json()["error"]


def test_wrong_method_and_path_are_json_errors(service: str) -> None:
    for response in (httpx.get(f"{service}/embed"), httpx.post(f"{service}/nope", json={})):
        assert 400 <= response.status_code < 500
        assert response.json()["error"]


def test_health_names_the_model_and_provider(service: str) -> None:
    body = httpx.get(f"{service}/health").json()
    assert body == {
        "model": "rk-test/tiny-clip",
        "dim": 16,
        "provider": "CPUExecutionProvider",
        "has_text": True,
    }


def test_a_missing_model_fails_at_start_with_one_line(tmp_path: Path) -> None:
    result = rk("vision", "serve", "--port", str(free_port()), "--model", str(tmp_path / "none"))
    assert result.returncode == 2
    assert (
        result.stderr.strip().splitlines()[-1]
        == f"error: {tmp_path / 'none'}: model directory not found"
    )
