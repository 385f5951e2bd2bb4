"""The exact answers of ``POST /admin/internal/ingest`` over a real socket, pinned.

Status, JSON body and the headers that matter (content type, ``X-Request-ID``,
``Retry-After``) for bad bodies, bad signatures, a replay, bodies over the limit, an
outage and a success. They were recorded from the route as Litestar's full request
machinery served it, before the lean ingest path replaced it: the two must answer alike.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from rk.core.api.plugins import new_plugin_manager
from rk.core.api.signing import NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signed_headers
from rk.server.ingest.intake import source_kinds
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import (
    INGEST,
    SECRET,
    Backend,
    add_brand,
    backend_settings,
    job_count,
    show,
)
from tests.integration.server.test_operations import samples, value
from tests.support.pg import refusing_connections

Answer = tuple[int, Any]
URL = "https://img.example/1.jpg"
GOOD = msgspec.json.encode(show("ss25/good", [URL]))


def edited(change: Callable[[dict[str, Any]], None]) -> bytes:
    """The good body with ``change`` applied to its JSON."""
    data = json.loads(GOOD)
    change(data)
    return json.dumps(data).encode()


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


def _twice(data: dict[str, Any]) -> None:
    data["looks"].append(data["looks"][0])


BAD_BODIES: dict[str, bytes] = {
    "not json": b"{not json",
    "empty": b"",
    "truncated": GOOD[:-5],
    "not utf-8": GOOD.replace(b"Show", b"Sh\xffw"),
    "an array": b"[]",
    "source of the wrong type": edited(_set(("source",), 7)),
    "look number a string": edited(_set(("looks", 0, "number"), "1")),
    "no show_key": edited(_drop("show_key")),
    "unknown field": edited(_set(("colour",), "red")),
    "look number 0": edited(_set(("looks", 0, "number"), 0)),
    "title too long": edited(_set(("title",), "x" * 201)),
    "newline in the title": edited(_set(("title",), "a\nb")),
    "ftp image URL": edited(_set(("looks", 0, "image", "url"), "ftp://img.example/1.jpg")),
    "control character in an image URL": edited(
        _set(("looks", 0, "image", "url"), "https://img.example/a\x01b.jpg")
    ),
    "image URL without a host": edited(_set(("looks", 0, "image", "url"), "https:///1.jpg")),
    "bad port in an image URL": edited(
        _set(("looks", 0, "image", "url"), "https://img.example:99999/1.jpg")
    ),
    "no images": edited(_set(("looks",), [])),
    "duplicate look numbers": edited(_twice),
    "bad sha1": edited(_set(("looks", 0, "image", "sha1"), "ABC")),
    "unknown kind": edited(_set(("kind",), "catwalk")),
    "kind contradicts the source": edited(_set(("kind",), "street")),
    "unknown source without a kind": edited(
        lambda data: (data.update(source="elsewhere"), data.pop("kind"))
    ),
    "unknown brand uid": edited(_set(("brand",), {"uid": "nosuchbrand", "name": "Nobody"})),
}

EXPECTED_BODIES: dict[str, Answer] = {
    "not json": (
        400,
        "body is not valid JSON: JSON is malformed: object keys must be strings (byte 1)",
    ),
    "empty": (400, "'data' (body data)"),
    "truncated": (400, "body is not valid JSON: Input data was truncated"),
    "not utf-8": (400, "body is not valid JSON: Invalid UTF-8 encoded string"),
    "an array": (422, "invalid body: Expected `object`, got `array`"),
    "source of the wrong type": (422, "invalid body: Expected `str`, got `int` - at `$.source`"),
    "look number a string": (
        422,
        "invalid body: Expected `int`, got `str` - at `$.looks[0].number`",
    ),
    "no show_key": (422, "invalid body: Object missing required field `show_key`"),
    "unknown field": (422, "invalid body: Object contains unknown field `colour`"),
    "look number 0": (422, "invalid body: Expected `int` >= 1 - at `$.looks[0].number`"),
    "title too long": (422, "invalid body: Expected `str` of length <= 200 - at `$.title`"),
    "newline in the title": (
        422,
        "invalid body: Expected one line of text without control characters (NUL, newline, …)"
        " - at `$.title`",
    ),
    "ftp image URL": (
        422,
        "invalid body: look 1: bad image URL (scheme 'ftp' is not http or https)",
    ),
    "control character in an image URL": (
        422,
        "invalid body: look 1: bad image URL (control characters)",
    ),
    "image URL without a host": (422, "invalid body: look 1: bad image URL (no host)"),
    "bad port in an image URL": (
        422,
        "invalid body: look 1: bad image URL (Port out of range 0-65535)",
    ),
    "no images": (422, "invalid body: a show needs at least one look or detail image"),
    "duplicate look numbers": (422, "invalid body: look numbers must be unique within a show"),
    "bad sha1": (
        422,
        "invalid body: Expected `str` matching regex '^[0-9a-f]{40}$' - at `$.looks[0].image.sha1`",
    ),
    "unknown kind": (422, "invalid body: Invalid enum value 'catwalk' - at `$.kind`"),
    "kind contradicts the source": (
        422,
        "kind 'street' is not the kind of source 'vogue' (runway)",
    ),
    "unknown source without a kind": (
        422,
        "unknown source 'elsewhere' and no kind (runway or street) in the show;"
        f" this backend has plugins for: {', '.join(sorted(source_kinds(new_plugin_manager())))}",
    ),
    "unknown brand uid": (422, "unknown brand uid 'nosuchbrand' (Nobody)"),
}


@pytest.fixture
async def backend(start_backend: StartBackend) -> Backend:
    """A backend on the embedded default, without ingest workers (jobs stay pending)."""
    return await start_backend(workers=0)


async def post(
    backend: Backend, body: bytes | AsyncIterator[bytes], headers: dict[str, str]
) -> httpx.Response:
    """``POST ingest`` with exactly these headers (plus a JSON content type)."""
    sent = {"Content-Type": "application/json", **headers}
    return await backend.client.post(INGEST, content=body, headers=sent)


def steady(found: Answer) -> Answer:
    """The answer with a clock offset of 1000 s ± 3 (a second may tick meanwhile) as 1000."""
    status, error = found
    return status, re.sub(r"is ([+-])(99[7-9]|100[0-3]) s off", r"is \g<1>1000 s off", error)


def answer(response: httpx.Response) -> Answer:
    """Status and one-line error (or the JSON body of a success): every answer is JSON."""
    assert response.headers["content-type"] == "application/json", response.headers
    body = response.json()
    return response.status_code, body["error"] if list(body) == ["error"] else body


async def test_bad_bodies_answer_as_pinned(backend: Backend) -> None:
    found = {
        name: answer(await backend.signed("POST", INGEST, body))
        for name, body in BAD_BODIES.items()
    }
    assert found == EXPECTED_BODIES
    assert await job_count() == 0


def _headers(**change: str | None) -> dict[str, str]:
    """Good signed headers for GOOD, with some replaced (None: left out)."""
    headers = signed_headers(SECRET, "POST", INGEST, GOOD)
    for name, text in change.items():
        header = {"ts": TIMESTAMP_HEADER, "sig": SIGNATURE_HEADER, "nonce": NONCE_HEADER}[name]
        if text is None:
            headers.pop(header)
        else:
            headers[header] = text
    return headers


def bad_signatures() -> dict[str, tuple[bytes, dict[str, str]]]:
    """Requests whose signature is refused, with the body each sends."""
    now = int(time.time())
    return {
        "no signature headers": (GOOD, {}),
        "no signature": (GOOD, _headers(sig=None)),
        "no timestamp": (GOOD, _headers(ts=None)),
        "signature not hex": (GOOD, _headers(sig="zz")),
        "timestamp with a leading zero": (GOOD, _headers(ts=f"0{now}")),
        "stale timestamp": (GOOD, signed_headers(SECRET, "POST", INGEST, GOOD, now - 1000)),
        "timestamp from the future": (
            GOOD,
            signed_headers(SECRET, "POST", INGEST, GOOD, now + 1000),
        ),
        "another secret": (GOOD, signed_headers("another-secret", "POST", INGEST, GOOD)),
        "signed for another path": (
            GOOD,
            signed_headers(SECRET, "POST", "/admin/internal/ping", GOOD),
        ),
        "nonce too short": (GOOD, _headers(nonce="short")),
        "another body": (GOOD + b" ", signed_headers(SECRET, "POST", INGEST, GOOD)),
        "unsigned and not JSON": (b"{not json", {}),
    }


REPLAYED = (
    "replayed request: this signature was already accepted"
    " (send a fresh X-RK-Timestamp or X-RK-Nonce with each request)"
)
EXPECTED_SIGNATURES: dict[str, Answer] = {
    "no signature headers": (401, "missing X-RK-Timestamp or X-RK-Signature header"),
    "no signature": (401, "missing X-RK-Timestamp or X-RK-Signature header"),
    "no timestamp": (401, "missing X-RK-Timestamp or X-RK-Signature header"),
    "signature not hex": (401, "signature does not match (is the ingest secret the same on both?)"),
    "timestamp with a leading zero": (
        401,
        "X-RK-Timestamp is not unix seconds (plain decimal digits)",
    ),
    "stale timestamp": (401, "timestamp is +1000 s off the server clock (allowed ±300 s)"),
    "timestamp from the future": (
        401,
        "timestamp is -1000 s off the server clock (allowed ±300 s)",
    ),
    "another secret": (401, "signature does not match (is the ingest secret the same on both?)"),
    "signed for another path": (
        401,
        "signature does not match (is the ingest secret the same on both?)",
    ),
    "nonce too short": (401, "X-RK-Nonce must be 8-64 characters of A-Z a-z 0-9 _ -"),
    "another body": (401, "signature does not match (is the ingest secret the same on both?)"),
    "unsigned and not JSON": (401, "missing X-RK-Timestamp or X-RK-Signature header"),
}


async def test_bad_signatures_answer_as_pinned(backend: Backend) -> None:
    found = {
        name: steady(answer(await post(backend, body, headers)))
        for name, (body, headers) in bad_signatures().items()
    }
    assert found == EXPECTED_SIGNATURES
    assert await job_count() == 0


async def test_a_replay_is_409_and_a_refused_request_stays_refused(backend: Backend) -> None:
    headers = signed_headers(SECRET, "POST", INGEST, GOOD)
    first, again = [answer(await post(backend, GOOD, headers)) for _ in range(2)]
    assert first == (202, {"job_id": 1})
    assert again == (409, REPLAYED)
    bad = edited(_set(("kind",), "street"))
    headers = signed_headers(SECRET, "POST", INGEST, bad)
    refused = [answer(await post(backend, bad, headers)) for _ in range(2)]
    kind = "kind 'street' is not the kind of source 'vogue' (runway)"
    assert refused == [(422, kind), (422, kind)]
    assert await job_count() == 1


async def test_bodies_over_the_limit_are_413_before_the_signature(backend: Backend) -> None:
    limit = backend.settings.server.max_body_bytes
    huge = b"{" + b" " * limit + b"}"

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(4):
            yield b" " * (limit // 3)

    found = {
        "signed": answer(await backend.signed("POST", INGEST, huge)),
        "unsigned": answer(await post(backend, huge, {})),
        "chunked, no length": answer(await post(backend, chunks(), _headers())),
    }
    too_large = (413, "Request Entity Too Large")
    assert found == {"signed": too_large, "unsigned": too_large, "chunked, no length": too_large}
    unsigned = answer(await post(backend, chunks(), {}))
    assert unsigned == (401, "missing X-RK-Timestamp or X-RK-Signature header")
    assert await job_count() == 0


async def test_accepted_answers_and_request_ids(backend: Backend) -> None:
    brand = await add_brand("Maison Aurele")
    body = msgspec.json.encode(show("ss25/branded", [URL], brand=brand))
    accepted = await post(
        backend, body, {**signed_headers(SECRET, "POST", INGEST, body), "X-Request-ID": "trace-7"}
    )
    assert answer(accepted) == (202, {"job_id": 1})
    assert accepted.headers["x-request-id"] == "trace-7"
    assert accepted.headers["content-length"] == str(len(accepted.content))
    fresh = await post(backend, GOOD, {**_headers(), "X-Request-ID": "not a sane id"})
    assert answer(fresh) == (202, {"job_id": 2})
    assert len(fresh.headers["x-request-id"]) == 16
    refused = await post(backend, GOOD, {"X-Request-ID": "trace-8"})
    assert refused.status_code == 401
    assert refused.headers["x-request-id"] == "trace-8"
    wrong_method = await backend.client.get(INGEST)
    assert answer(wrong_method) == (405, "Method Not Allowed")
    assert set(wrong_method.headers["allow"].split(", ")) == {"OPTIONS", "POST"}


async def test_answers_are_logged_and_counted_by_route(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="rk.server.request"):
        assert (await backend.ingest(GOOD)).status_code == 202
        assert (await post(backend, GOOD, {})).status_code == 401
        assert (await backend.ingest(b"[]")).status_code == 422
    lines = [
        (r.levelname, r.getMessage().split(" in ")[0])
        for r in caplog.records
        if r.name == "rk.server.request"  # another test may leave httpx's INFO lines on
    ]
    assert lines == [
        ("DEBUG", f"POST {INGEST} -> 202"),
        ("INFO", f"POST {INGEST} -> 401"),
        ("INFO", f"POST {INGEST} -> 422"),
    ]
    found = samples((await backend.client.get("/metrics")).text)
    for status in ("202", "401", "422"):
        labels = {"route": INGEST, "method": "POST", "status": status}
        assert value(found, "rk_http_request_duration_seconds_count", **labels) == 1


@pytest.mark.postgres
async def test_a_database_outage_is_503_with_retry_after(
    start_backend: StartBackend, pg_dsn: str, tmp_path: Path
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=pg_dsn, workers=0))
    assert (await backend.ingest(GOOD)).status_code == 202
    async with refusing_connections(pg_dsn):
        down = await backend.ingest(GOOD)
    assert answer(down) == (503, "database unavailable, retry later")
    assert down.headers["retry-after"] == "5"
