"""A URL a browser would not open as http(s) is refused at the door, on both engines.

Show, image and thumbnail URLs become links on the public site and the console, so
``javascript:``, ``data:`` and ``vbscript:`` in any of them (in any case, behind spaces or
controls) get a 422 naming the field, and nothing is queued or stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from rk.server.platform.db.tables import Article, Image
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import Backend, backend_settings, job_count, show
from tests.integration.server.test_internal_api import assert_error

HOSTILE = [
    "javascript:alert(document.domain)",
    "JAVASCRIPT:alert(1)",
    "  javascript:alert(1)",
    "\u0000javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
]


def _show_url(data: dict[str, Any], url: str) -> None:
    data["url"] = url


def _image_url(data: dict[str, Any], url: str) -> None:
    data["looks"][0]["image"]["url"] = url


def _thumb_url(data: dict[str, Any], url: str) -> None:
    data["looks"][0]["image"]["thumb_url"] = url


def _detail_url(data: dict[str, Any], url: str) -> None:
    data["details"][0]["url"] = url


FIELDS: dict[str, tuple[Callable[[dict[str, Any], str], None], str]] = {
    "show": (_show_url, "$.url"),
    "image": (_image_url, "look 1: bad image url"),
    "thumbnail": (_thumb_url, "look 1: bad thumbnail url"),
    "detail": (_detail_url, "detail 1: bad image url"),
}


@pytest.fixture
async def backend(start_backend: StartBackend, any_dsn: str, tmp_path: Path) -> Backend:
    return await start_backend(backend_settings(tmp_path, database=any_dsn, workers=0))


def _body(field: str, url: str) -> bytes:
    data = msgspec.to_builtins(
        show("ss25/a", ["https://img.example/1.jpg"], details=["https://img.example/d.jpg"])
    )
    FIELDS[field][0](data, url)
    return json.dumps(data).encode()


@pytest.mark.parametrize("field", list(FIELDS))
async def test_a_url_that_is_not_http_is_422_and_nothing_is_queued(
    backend: Backend, field: str
) -> None:
    for url in HOSTILE:
        response = await backend.ingest(_body(field, url))
        assert_error(response, 422, FIELDS[field][1])
    assert (await job_count(), await Article.count(), await Image.count()) == (0, 0, 0)
    accepted = await backend.ingest(_body(field, "  HTTPS://www.vogue.com/fashion-shows/a "))
    assert accepted.status_code == 202, accepted.text
    assert await job_count() == 1
