"""Migration 0046 empties stored URLs a browser would not open as http(s), on both engines."""

from __future__ import annotations

import logging

import pytest

from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import apply_migrations
from rk.server.platform.db.piccolo_engines import engine_for_database
from rk.server.platform.db.tables import Article, Image

BAD = [
    "javascript:alert(document.cookie)",
    "  JAVASCRIPT:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "https:no-host",
]
GOOD = ["https://www.vogue.com/fashion-shows/a", "HTTP://img.example/1.jpg", ""]


async def test_failing_urls_are_emptied_and_counted(
    any_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = await connect(any_dsn)
    engine = engine_for_database(db)
    try:
        await apply_migrations(engine, before="0046")
        urls = BAD + GOOD
        rows = await Article.insert(
            *[
                Article(source="vogue", show_key=f"k/{n}", kind="runway", url=u)
                for n, u in enumerate(urls)
            ]
        ).returning(Article.id)
        first = int(rows[0]["id"])
        await Image.insert(
            *[
                Image(
                    article_id=first,
                    role="look",
                    position=n,
                    kind="runway",
                    key=f"k{n}",
                    source_url=u,
                )
                for n, u in enumerate(urls, start=1)
            ]
        )
        with caplog.at_level(logging.WARNING, logger="rk.server"):
            applied = await apply_migrations(engine)
        assert applied[0] == "0046_unlinkable_urls"
        articles = [r["url"] for r in await Article.select(Article.url).order_by(Article.id)]
        images = [r["source_url"] for r in await Image.select(Image.source_url).order_by(Image.id)]
        assert articles == images == [""] * len(BAD) + GOOD
        assert "emptied 6 article URLs and 6 image source URLs" in caplog.text
        assert await apply_migrations(engine) == []
    finally:
        await close(db)
