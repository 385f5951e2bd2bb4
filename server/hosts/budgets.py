"""Request starts on a site host, handed out to spiders so the whole fleet keeps one pace.

Each host has one row: the earliest unix time at which any spider may start its next request
there. A spider takes ``want`` starts at once: they begin at that time (or now, if it has
passed), ``interval_s`` apart, and the row moves past the last of them, so starts taken by
different spiders never come closer than the interval. A ``Retry-After`` a spider reports
(``pause_s``) makes the first start no sooner than that from now, and every later taker waits
behind it. The row is moved by one atomic statement, so any number of backend processes on
one database agree; their clocks must agree too (NTP), as signed requests already require.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from rk.core.api.wire import HostTokens, HostTokensWanted
from rk.server.hosts.repository import reserve_starts

log = logging.getLogger(__name__)


def millis(seconds: float) -> int:
    """``seconds`` in whole milliseconds, rounded up: an interval is never shortened."""
    return math.ceil(seconds * 1000)


async def take_tokens(wanted: HostTokensWanted, clock: Callable[[], float]) -> HostTokens:
    """Reserve ``wanted.want`` starts on ``wanted.host``; ``clock`` is unix time.

    ``wait_s`` is counted from the clock read after the row moved, so the time the database
    took does not make the spider's starts late (and closer to the next spider's).
    """
    now_ms = math.floor(clock() * 1000)
    if wanted.pause_s:
        log.info(
            "%s: a spider was told Retry-After %.1f s; no spider starts a request there sooner",
            wanted.host,
            wanted.pause_s,
        )
    span = wanted.want * millis(wanted.interval_s)
    first = await reserve_starts(wanted.host, span, now_ms + millis(wanted.pause_s), now_ms // 1000)
    answered_ms = math.floor(clock() * 1000)
    return HostTokens(granted=wanted.want, wait_s=max(0, first - answered_ms) / 1000)
