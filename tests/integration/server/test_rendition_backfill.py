"""``rk storage renditions`` gives images stored before ladders existed their ladder (issue
29), on SQLite and PostgreSQL: it reports progress after each batch, stops at ``--limit``
and a second run carries on with what is left; an original too small for any rung is
recorded as such, one missing from storage is reported and left for a later run, and the
images of a deleted article are not worked on."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from rk.core.api.keys import rendition_key
from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import StorageContext
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image, ImageRendition
from tests.integration.public.archive import Archive, add_show
from tests.support.cli import rk

SIZE = (700, 1050)
"""Three rungs: 360, 560 and 640."""
PROGRESS = re.compile(
    r"renditions: (\d+) of (\d+) originals \(\d+ %\): (\d+) given (\d+) rungs, (\d+) too small,"
    r" 0 undecodable, (\d+) missing from storage"
)


def run(data: Path, dsn: str, *args: str) -> list[tuple[int, ...]]:
    """``rk storage renditions ARGS``: the figures of each progress line (done, total, given,
    rungs, too small, missing), then the originals left."""
    env = {"RK_DATA_DIR": str(data), "RK_DATABASE": dsn, "PATH": os.environ["PATH"]}
    done = rk("storage", "renditions", *args, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    *lines, left = done.stdout.splitlines()
    figures = []
    for line in lines:
        match = PROGRESS.fullmatch(line)
        assert match, line
        figures.append(tuple(int(n) for n in match.groups()))
    assert left.endswith(" originals left without renditions"), left
    return [*figures, (int(left.split()[0]),)]


async def test_the_backfill_resumes_and_reports_progress(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    data = tmp_path / "data"
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        storage = open_storage(f"file://{data / 'media'}", StorageContext(), plugin_manager)
        archive = Archive()
        await add_show(storage, archive, "big", brand="Nordlys", looks=30, seed=1, size=SIZE)
        await add_show(storage, archive, "small", brand="Nordlys", looks=1, seed=2)
        await add_show(storage, archive, "gone", looks=2, seed=3, size=SIZE, deleted=True)
        keys = {int(row["id"]): str(row["key"]) for row in await Image.select(Image.id, Image.key)}
        lost = min(archive.images["big"], key=keys.__getitem__)  # the first one worked on
        await storage.delete(keys[lost])

        first = run(data, any_dsn, "--limit", "26")
        assert [line[:2] for line in first[:-1]] == [(25, 26), (26, 26)]
        assert first[-2][5] == 1
        assert first[-1] == (6,)
        second = run(data, any_dsn)
        assert [line[:2] for line in second[:-1]] == [(6, 6)]
        assert second[-2][5] == 1
        assert second[-1] == (1,)
        assert first[-2][2] + second[-2][2] == 29
        assert first[-2][3] + second[-2][3] == 29 * 3
        assert first[-2][4] + second[-2][4] == 1
        assert run(data, any_dsn) == [(1, 1, 0, 0, 0, 1), (1,)]

        recorded = {
            str(row["key"]): str(row["widths"])
            for row in await ImageRendition.select(ImageRendition.key, ImageRendition.widths)
        }
        widths = {image_id: recorded.get(key) for image_id, key in keys.items()}
        [small] = archive.images["small"]
        assert widths[small] == ""
        assert widths[lost] is None
        assert all(widths[i] is None for i in archive.images["gone"])
        done = [i for i in archive.images["big"] if i != lost]
        assert {widths[i] for i in done} == {"360,560,640"}
        digest = hashlib.sha1(await storage.get(keys[done[0]])).hexdigest()
        for width in (360, 560, 640):
            assert await storage.head(rendition_key(width, digest)) is not None
        assert await storage.head(rendition_key(1200, digest)) is None
    finally:
        await close(engine)
