"""rk.server.crawl: what spiders crawl next: crawl tasks leased to one spider at a
time, whole seasons, and the signed crawl-task API.
"""

from __future__ import annotations

from rk.server.crawl.routes import CrawlTaskController
from rk.server.crawl.seasons import ensure_brand
from rk.server.crawl.tasks import STATUSES, CrawlTasks

__all__ = [
    "STATUSES",
    "CrawlTaskController",
    "CrawlTasks",
    "ensure_brand",
]
