"""Schemathesis against a running ``rk serve-backend``: no 5xx, no answer outside the schema.

Every operation of ``/schema/openapi.json`` is fuzzed from its own schema, positive and
negative cases alike; signed routes go out signed (a fresh nonce each, so the replay guard
never interferes), public routes as they are. The budget is examples per operation:
``RK_TEST_SCHEMATHESIS_EXAMPLES`` (default 15; ``.ci/run`` runs a longer pass).

Every check runs but two. "Schema-valid data is accepted": a body can be valid by the
schema and still be refused with a 422 that names why (an unknown source, a look number
used twice, an unknown brand uid), which is the door working, not a schema violation.
"Unsigned requests are refused": it cannot judge requests this test signs itself
(``test_internal_api`` covers the 401s).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from rk.core.api.signing import signed_headers
from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port

SECRET = "fuzz-secret-0123456789"
TINY_CLIP = str(Path(__file__).resolve().parents[2] / "models" / "tiny_clip")
EXCLUDED = [positive_data_acceptance, ignored_auth]
EXAMPLES = int(os.environ.get("RK_TEST_SCHEMATHESIS_EXAMPLES", "15"))


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[str]:
    """A real backend on the embedded default (SQLite + files) with the tiny CLIP model."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    env |= {"RK_INGEST_SECRET": SECRET, "RK_SERVER_WORKERS": "0", "RK_VISION_MODEL": TINY_CLIP}
    with (tmp_path / "backend.log").open("wb") as log:
        proc = subprocess.Popen(
            [RK, "serve-backend", "--port", str(port), "--data-dir", str(tmp_path / "data")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def send(client: httpx.Client, base: str, case: schemathesis.Case) -> httpx.Response:
    """The case as one HTTP request; signed like a spider signs it under /admin/internal."""
    kwargs = case.as_transport_kwargs(base_url=base)
    request = client.build_request(
        kwargs["method"],
        kwargs["url"],
        params=kwargs.get("params"),
        headers=kwargs.get("headers"),
        json=kwargs.get("json"),
        content=kwargs.get("data") if isinstance(kwargs.get("data"), bytes) else None,
        data=kwargs.get("data") if isinstance(kwargs.get("data"), dict) else None,
        files=kwargs.get("files"),
    )
    if request.url.path.startswith("/admin/internal/"):
        body = request.read()
        path = request.url.raw_path.decode("ascii")
        request.headers.update(signed_headers(SECRET, request.method, path, body))
    return client.send(request)


def fuzz(
    client: httpx.Client, base: str, operation: schemathesis.APIOperation, sent: list[int]
) -> str | None:
    """Run the operation's examples; the first failure as one line, or None."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def examples(data: st.DataObject) -> None:
        case = data.draw(operation.as_strategy())
        response = send(client, base, case)
        sent.append(response.status_code)
        case.validate_response(response, excluded_checks=EXCLUDED)

    try:
        examples()
    except Exception as exc:
        return f"{operation.label}: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
    return None


@pytest.mark.timeout(900)
def test_no_server_errors_and_no_answer_outside_the_schema(backend: str) -> None:
    schema = schemathesis.openapi.from_url(f"{backend}/schema/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    sent: list[int] = []
    with httpx.Client(timeout=30) as client:
        failures = [fuzz(client, backend, operation, sent) for operation in operations]
    found = [failure for failure in failures if failure]
    assert not found, "\n".join(found)
    assert len(sent) >= len(operations) * min(EXAMPLES, 5), "every operation was exercised"
    assert not [status for status in sent if status >= 500]
