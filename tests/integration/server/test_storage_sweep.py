"""The backend's periodic storage sweep: one process sweeps per interval, orphans go."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import StorageContext
from rk.server.media.storage_sweep import START_DELAY_S, StorageSweeper
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate


async def test_one_process_sweeps_per_interval_and_orphans_go(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        storage = open_storage(f"file://{tmp_path / 'media'}", StorageContext(), plugin_manager)
        orphan = b"left by a killed worker"
        key = f"runway/{hashlib.sha1(orphan).hexdigest()}.jpg"
        await storage.put(key, orphan)
        first = StorageSweeper(storage, interval_s=3600, grace_s=0)
        second = StorageSweeper(storage, interval_s=3600, grace_s=0)
        assert await first.run_once() is True
        assert await storage.head(key) is None
        assert await second.run_once() is False
        assert await first.run_once() is True
    finally:
        await close(engine)


async def test_a_starting_process_waits_before_its_first_sweep(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        storage = open_storage(f"file://{tmp_path / 'media'}", StorageContext(), plugin_manager)
        orphan = b"left by a killed worker"
        key = f"runway/{hashlib.sha1(orphan).hexdigest()}.jpg"
        await storage.put(key, orphan)
        starting = StorageSweeper(storage, interval_s=3600, grace_s=0)
        assert starting.start_delay_s == START_DELAY_S
        starting.start()
        for _ in range(20):
            await asyncio.sleep(0)
        assert await storage.head(key) is not None
        await starting.stop()
        assert await StorageSweeper(storage, interval_s=3600, grace_s=0).run_once() is True
        assert await storage.head(key) is None
        quick = StorageSweeper(storage, interval_s=60, grace_s=0)
        assert quick.start_delay_s == 60
    finally:
        await close(engine)
