"""The storage sweep works in batches: small batches find the same orphans and missing keys
as one batch, count a key shared by many images once, and delete only orphans, on both
engines."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import StorageContext
from rk.server.media.storage_gc import sweep
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Article, Image


def key_of(data: bytes) -> str:
    return f"runway/{hashlib.sha1(data).hexdigest()}.jpg"


async def test_small_batches_agree_with_one_batch(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        storage = open_storage(f"file://{tmp_path / 'media'}", StorageContext(), plugin_manager)
        stored = [f"look {n}".encode() for n in range(7)]
        orphans = [f"orphan {n}".encode() for n in range(5)]
        never_stored = [f"missing {n}".encode() for n in range(3)]
        for data in stored + orphans:
            await storage.put(key_of(data), data)
        [row] = await Article.insert(
            Article(source="vogue", show_key="ss25/a", kind="runway")
        ).returning(Article.id)
        looks = stored + never_stored + [never_stored[0]] * 4  # one missing key, five images
        await Image.insert(
            *[
                Image(
                    article_id=int(row["id"]),
                    role="look",
                    position=n,
                    kind="runway",
                    key=key_of(data),
                    width=10,
                    height=10,
                )
                for n, data in enumerate(looks, start=1)
            ]
        )
        whole = await sweep(storage, grace_s=0, dry_run=True)
        small = await sweep(storage, grace_s=0, dry_run=True, batch_size=2)
        assert small == whole
        assert (whole.listed, whole.referenced, whole.orphans, whole.missing) == (12, 7, 5, 3)
        assert sorted(whole.orphan_sample) == sorted(key_of(data) for data in orphans)
        assert whole.missing_sample == sorted(key_of(data) for data in never_stored)
        swept = await sweep(storage, grace_s=0, batch_size=2)
        assert swept.deleted == 5
        for data in orphans:
            assert await storage.head(key_of(data)) is None
        for data in stored:
            assert await storage.head(key_of(data)) is not None
    finally:
        await close(engine)
