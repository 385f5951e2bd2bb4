"""Error answers are one line and never carry a URL password or signature."""

from __future__ import annotations

from rk.server.errors import one_line


def test_error_line_masks_credentials() -> None:
    line = one_line(
        "storage unavailable:\n PUT http://s3/b/k?X-Amz-Signature=abc123 via postgresql://rk:pw9@db/rk"
    )
    assert line == (
        "storage unavailable: PUT http://s3/b/k?X-Amz-Signature=*** via postgresql://rk:***@db/rk"
    )
