"""Image rows stored 0×0 get their size: migration 0028 from a sibling row, the sweep from
the original's header (public-site leftover), on both engines."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import StorageContext
from rk.server.media.storage_gc import sweep
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.migrations.m0028_image_sizes import forwards
from rk.server.platform.db.piccolo_engines import engine_for_database
from rk.server.platform.db.tables import Article, Image
from tests.integration.server.images import jpeg


def key_of(data: bytes) -> str:
    return f"runway/{hashlib.sha1(data).hexdigest()}.jpg"


async def test_zero_sizes_are_filled_from_siblings_then_headers(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        storage = open_storage(f"file://{tmp_path / 'media'}", StorageContext(), plugin_manager)
        sized, lone, gone = jpeg(1, (600, 900)), jpeg(2, (300, 200)), jpeg(3)
        await storage.put(key_of(lone), lone)
        rows = await Article.insert(
            Article(source="vogue", show_key="ss25/a", kind="runway")
        ).returning(Article.id)
        article = int(rows[0]["id"])
        images = [(sized, 600, 900), (sized, 0, 0), (lone, 0, 0), (gone, 0, 0)]
        await Image.insert(
            *[
                Image(
                    article_id=article,
                    role="look",
                    position=n,
                    kind="runway",
                    key=key_of(data),
                    width=w,
                    height=h,
                )
                for n, (data, w, h) in enumerate(images, start=1)
            ]
        )

        async def sizes() -> list[tuple[int, int]]:
            found = await Image.select(Image.width, Image.height).order_by(Image.position)
            return [(row["width"], row["height"]) for row in found]

        await forwards(engine_for_database(engine))
        assert await sizes() == [(600, 900), (600, 900), (0, 0), (0, 0)]
        report = await sweep(storage, grace_s=3600)
        assert report.sized == 1
        assert "sizes: 1 image rows given their width and height" in report.lines()
        assert await sizes() == [(600, 900), (600, 900), (300, 200), (0, 0)]
        assert report.missing == 2
        assert report.deleted == 0
    finally:
        await close(engine)
