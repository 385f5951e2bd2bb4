"""One spider of a fleet, as its own process: a polite client with its own backend client.

``python -m tests.integration.http.fleet_spider ENDPOINT SECRET URL COUNT INTERVAL_S`` GETs
``URL`` ``COUNT`` times at once (the polite client paces them) through the fleet's shared host
budget, and prints ``ok N`` with the number of 200 answers. A fallback to local limits is
logged on stderr, where the test looks for it.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from rk.core.config import SpiderSettings
from rk.core.runtime.client import BackendClient
from rk.core.runtime.host_budget import fleet_budget
from rk.core.runtime.http import polite_client


async def crawl(endpoint: str, secret: str, url: str, count: int, interval_s: float) -> int:
    """How many of ``count`` GETs of ``url`` answered 200."""
    settings = SpiderSettings(min_interval_s=interval_s, per_host_concurrency=4, fleet_batch=2)
    async with (
        BackendClient(endpoint, secret) as backend,
        polite_client(settings, budget=fleet_budget(settings, backend)) as client,
    ):
        answers = await asyncio.gather(*(client.get(url) for _ in range(count)))
    return sum(answer.status_code == 200 for answer in answers)


def main() -> None:
    """Run one spider from the command line's arguments."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    endpoint, secret, url, count, interval = sys.argv[1:6]
    print("ok", asyncio.run(crawl(endpoint, secret, url, int(count), float(interval))))


if __name__ == "__main__":
    main()
