"""Run a subprocess with its clock shifted, through Debian's libfaketime (package ``faketime``)."""

from __future__ import annotations

from pathlib import Path

from tests.support.skips import skip_or_fail

LIBS = (
    Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
    Path("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
)


def faketime_env(skew_s: int) -> dict[str, str]:
    """Environment entries that put a child's wall clock ``skew_s`` seconds off.

    Monotonic clocks stay real (timeouts and sleeps behave). Without libfaketime the test
    skips with a one-line reason, or fails under ``CI=true`` (``.ci/run`` installs it).
    """
    lib = next((p for p in LIBS if p.exists()), None)
    if lib is None:
        skip_or_fail("libfaketime not installed: apt-get install faketime")
    return {
        "LD_PRELOAD": str(lib),
        "FAKETIME": f"{skew_s:+d}s",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
