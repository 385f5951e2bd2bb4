"""Hypothesis-generated ingest payloads against a live backend.

The oracle is the wire contract itself: a body the strict ShowIngest decoder accepts, whose
brand (if any) exists, must get 202 and exactly one new job; anything else a 4xx JSON
error and no job. No payload may ever get a 5xx.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import uvicorn
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rk.core.api.plugins import RkPluginManager
from rk.core.api.signing import signed_headers
from rk.core.api.wire import ShowIngest
from rk.server.app import create_app
from tests.integration.server.helpers import INGEST, SECRET, backend_settings

KNOWN_UID = "known001"

urls = st.sampled_from(["https://img.example/a.jpg", "", "x" * 5000]) | st.text(max_size=20)
sha1s = st.sampled_from(["0" * 40, "A" * 40, "abc"]) | st.text("0123456789abcdef", max_size=41)
images = st.fixed_dictionaries(
    {"url": urls},
    optional={
        "key": st.sampled_from(["runway/" + "a" * 40 + ".jpg", "../x", ""]) | st.text(max_size=9),
        "size": st.integers(-3, 2**41) | st.text(max_size=3),
        "sha1": sha1s,
        "alt": st.text(max_size=5),
    },
)
looks = st.fixed_dictionaries(
    {"number": st.integers(-1, 100_001) | st.sampled_from(["1", 1.5, None]), "image": images},
    optional={"caption": st.text(max_size=5)},
)
brands = st.none() | st.fixed_dictionaries(
    {"uid": st.sampled_from([KNOWN_UID, "unknown1", ""]), "name": st.text(max_size=12)},
    optional={"id": st.integers()},
)
shows = st.fixed_dictionaries(
    {
        "source": st.sampled_from(["vogue", "theimpression", "Vogue", "", "a" * 33]),
        "show_key": st.sampled_from(["ss25/a", "", "k" * 513]) | st.text(max_size=12),
        "title": st.text(max_size=12) | st.just("t" * 201) | st.integers(),
    },
    optional={
        "brand": brands,
        "season": st.text(max_size=12) | st.just("s" * 201),
        "date": st.text(max_size=41),
        "looks": st.lists(looks, max_size=4) | st.just("looks"),
        "details": st.lists(images, max_size=3),
        "unexpected": st.integers(),
    },
)
valid_images = st.fixed_dictionaries(
    {"url": st.text(min_size=1, max_size=30)},
    optional={"key": st.just("runway/" + "b" * 40 + ".jpg"), "size": st.integers(0, 10**7)},
)
valid_shows = st.fixed_dictionaries(
    {
        "source": st.sampled_from(["vogue", "theimpression", "some-site_2"]),
        "show_key": st.text(min_size=1, max_size=40),
        "title": st.text(max_size=40),
        "looks": st.lists(
            st.tuples(st.integers(1, 100_000), valid_images), max_size=6, unique_by=lambda t: t[0]
        ).map(lambda pairs: [{"number": n, "image": image} for n, image in pairs]),
        "details": st.lists(valid_images, min_size=1, max_size=3),
    },
    optional={
        "brand": st.none() | st.just({"uid": KNOWN_UID, "name": "Known"}),
        "season": st.text(max_size=20),
        "city": st.text(max_size=20),
    },
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
bodies = (
    valid_shows.map(lambda d: json.dumps(d).encode())
    | valid_shows.map(lambda d: json.dumps(d, ensure_ascii=False).encode())
    | shows.map(lambda d: json.dumps(d).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=64)
    | shows.map(lambda d: json.dumps(d).encode()[:-3])
)


def expected_valid(body: bytes) -> bool:
    """What the wire contract says about ``body``."""
    try:
        decoded = msgspec.json.decode(body, type=ShowIngest)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return False
    return decoded.brand is None or decoded.brand.uid == KNOWN_UID


@contextmanager
def backend_thread(tmp_path: Path, pm: RkPluginManager) -> Iterator[tuple[str, Path]]:
    """A backend without ingest workers in a thread; yields its URL and SQLite file."""
    chosen = backend_settings(tmp_path, workers=0)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(chosen, pm),
            host="127.0.0.1",
            port=chosen.server.port,
            log_level="warning",
            lifespan="on",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("backend did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{chosen.server.port}", chosen.data_path / "rk.sqlite3"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


@pytest.fixture
def live(tmp_path: Path, plugin_manager: RkPluginManager) -> Iterator[tuple[httpx.Client, Any]]:
    with backend_thread(tmp_path, plugin_manager) as (url, db_path):
        db = sqlite3.connect(db_path)
        db.execute(
            "INSERT INTO brands (uid, name, slugs, created_at, updated_at)"
            " VALUES (?, 'Known', '{}', 0, 0)",
            (KNOWN_UID,),
        )
        db.commit()
        with httpx.Client(base_url=url, timeout=30) as client:
            yield client, db
        db.close()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies)
def test_generated_payloads(live: tuple[httpx.Client, Any], body: bytes) -> None:
    client, db = live
    before = db.execute("SELECT count(*) FROM ingest_jobs").fetchone()[0]
    headers = signed_headers(SECRET, "POST", INGEST, body)
    response = client.post(INGEST, content=body, headers=headers)
    after = db.execute("SELECT count(*) FROM ingest_jobs").fetchone()[0]
    assert response.status_code < 500, response.text
    valid = expected_valid(body)
    event("valid" if valid else f"invalid: {response.status_code}")
    if valid:
        assert response.status_code == 202, response.text
        assert after == before + 1
        assert response.json()["job_id"] == after
    else:
        assert 400 <= response.status_code < 500
        assert list(response.json()) == ["error"]
        assert after == before
