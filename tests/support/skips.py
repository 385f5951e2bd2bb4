"""Skip a test that cannot run on this machine, or fail it under ``CI=true``, where
``.ci/run`` has set up everything the suite needs and a skip would hide a broken set-up."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with ``reason`` (one line); under ``CI=true`` fail with it instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)
