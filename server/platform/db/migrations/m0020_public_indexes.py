"""0020: partial indexes for the public site's show lists (published, live articles only).

Every public list reads ``status = 'published' AND deleted_at = 0`` newest first by show
date then id, with keyset pagination (``(date, id) < (…)``), optionally narrowed by one
exact filter. One partial index per filter keeps each page an index range read on both
engines, whatever the share of pending or rejected articles. The year filter is a range of
``date`` (ISO ``YYYY-MM-DD``), served by the first index.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute

LIVE = "WHERE status = 'published' AND deleted_at = 0"
INDEXES = {
    "articles_public_date_idx": "(date, id)",
    "articles_public_brand_idx": "(brand_id, date, id)",
    "articles_public_season_idx": "(season, date, id)",
    "articles_public_city_idx": "(city, date, id)",
    "articles_public_kind_idx": "(kind, date, id)",
}


async def forwards(engine: Engine) -> None:
    """Create the partial indexes."""
    for name, columns in INDEXES.items():
        await execute(engine, f"CREATE INDEX {name} ON articles {columns} {LIVE}")
