"""Parsing ``Retry-After`` (seconds or HTTP-date) and the full-jitter backoff bounds."""

from __future__ import annotations

import email.utils

from rk.core.runtime.http import backoff_s, retry_after_s


def test_seconds() -> None:
    assert retry_after_s("7") == 7.0
    assert retry_after_s(" 0 ") == 0.0


def test_http_date() -> None:
    now = 1_700_000_000.0
    header = email.utils.formatdate(now + 90, usegmt=True)
    assert retry_after_s(header, now=now) == 90.0


def test_date_in_the_past_means_now() -> None:
    now = 1_700_000_000.0
    assert retry_after_s(email.utils.formatdate(now - 60, usegmt=True), now=now) == 0.0


def test_absent_or_garbage_is_none() -> None:
    assert retry_after_s(None) is None
    assert retry_after_s("") is None
    assert retry_after_s("soon") is None
    assert retry_after_s("-5") is None


def test_backoff_stays_within_the_exponential_envelope() -> None:
    for attempt in range(8):
        envelope = min(10.0, 0.5 * 2**attempt)
        waits = [backoff_s(attempt, 0.5, 10.0) for _ in range(200)]
        assert all(0.0 <= w <= envelope for w in waits)
        assert max(waits) > envelope / 2
