"""0026: crawl tasks for one season of a brand (``rk crawl add-season``).

``crawl_tasks.season`` is the source's season slug (``fall-2031-ready-to-wear``); "" keeps
the old meaning, the brand's newest ``max_shows`` shows.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute


async def forwards(engine: Engine) -> None:
    """Add ``crawl_tasks.season``."""
    await execute(
        engine, "ALTER TABLE crawl_tasks ADD COLUMN season VARCHAR(200) NOT NULL DEFAULT ''"
    )
