"""rk.server.crawl: what spiders crawl next: crawl tasks leased to one spider at a
time, whole seasons, and the signed crawl-task API.
"""

from __future__ import annotations
