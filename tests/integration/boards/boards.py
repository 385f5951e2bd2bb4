"""Helpers of the boards' HTTP tests: the tight limits, sharing a board, one-line errors."""

from __future__ import annotations

from typing import Any

import httpx

from rk.core.config import BoardSettings
from tests.integration.server.helpers import Backend

TIGHT = BoardSettings(max_items=3, per_address_per_day=2, title_max=10, note_max=5)


def one_line_error(response: httpx.Response, status: int) -> str:
    """The error line of a JSON 4xx answer, checked to be one line."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert isinstance(error, str)
    assert error
    assert "\n" not in error
    return error


async def share(site: Backend, title: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """POST a board; the 201 answer."""
    created = await site.client.post("/api/boards", json={"title": title, "items": items})
    assert created.status_code == 201, created.text
    answer: dict[str, Any] = created.json()
    return answer
