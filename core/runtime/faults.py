"""Fault-injection points: a test names one in ``RK_FAULT`` to kill the process right there.

A point costs one environment lookup. It exists so a test can prove what a crash at that
exact moment leaves behind (for example between "article written" and "job done"), which
no timing-based kill can hit reliably.
"""

from __future__ import annotations

import os
import signal

ENV = "RK_FAULT"


def fault_point(name: str) -> None:
    """Kill this process with SIGKILL here when ``RK_FAULT`` names this point.

    Args:
        name: the point, ``<area>.<moment>`` (``ingest.article_written``).
    """
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
