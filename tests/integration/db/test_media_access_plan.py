"""The /media publish check is an index lookup on both engines, not a scan of images.

``/media`` asks it on every request (``services.media_access``), so it must cost a probe
of ``images_key`` or ``images_thumb_key`` and the article's primary key, whatever the size
of the archive. Checked on an analyzed table of a few thousand images.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rk.server.media.repository import QUERIES
from rk.server.platform.db.database import Database
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate

ARTICLES, LOOKS = 300, 10


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[Database]:
    """A migrated database of ARTICLES articles (a third published) with LOOKS images each."""
    await migrate(any_dsn)
    database = await connect(any_dsn)
    statuses = ("published", "pending", "rejected")
    articles = ", ".join(
        f"('vogue', 'k{n}', 'runway', '{statuses[n % 3]}')" for n in range(ARTICLES)
    )
    await database.execute(
        f"INSERT INTO articles (source, show_key, kind, status) VALUES {articles}"
    )
    images = ", ".join(
        f"({a + 1}, 'look', {p}, 'runway', 'runway/{a:020d}{p:020d}.jpg',"
        f" 'thumb/{a:020d}{p:020d}.jpg')"
        for a in range(ARTICLES)
        for p in range(LOOKS)
    )
    await database.execute(
        "INSERT INTO images (article_id, role, position, kind, key, thumb_key) VALUES " + images
    )
    await database.execute("ANALYZE")
    try:
        yield database
    finally:
        await close(database)


@pytest.mark.parametrize("column", sorted(QUERIES))
async def test_the_publish_check_probes_an_index(db: Database, column: str) -> None:
    sql = QUERIES[column].replace("{}", f"'runway/{0:040d}.jpg'")
    if db.engine == "sqlite":
        plan = " | ".join(str(row["detail"]) for row in await db.rows(f"EXPLAIN QUERY PLAN {sql}"))
        assert f"SEARCH i USING INDEX images_{column} ({column}=?)" in plan, plan
        assert "SCAN" not in plan, plan
    else:
        plan = " | ".join(str(row["QUERY PLAN"]) for row in await db.rows(f"EXPLAIN {sql}"))
        assert f"Index Scan using images_{column} on images i" in plan, plan
        assert "Seq Scan" not in plan, plan
