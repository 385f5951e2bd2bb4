"""``rk colours backfill``: measures every image without a palette, resumes where it stopped,
and refuses bad input with one line and exit code 2, on SQLite and PostgreSQL.

The command runs in this process through Typer's runner (the code of the console script).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner, Result

from rk.cli.main import app
from rk.core.api.storage import Storage
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image, ImageColour
from tests.integration.colour.archive import add_look, add_original_only, picture
from tests.integration.embeddings.seed import article
from tests.support.garments import garment_picture


def rk(dsn: str, tmp_path: Path, *args: str) -> Result:
    """``rk ARGS`` against the database under test, media under ``tmp_path/data``."""
    env = {"RK_DATABASE": dsn, "RK_DATA_DIR": str(tmp_path / "data")}
    return CliRunner().invoke(app, list(args), env=env)


async def _seed(dsn: str, storage: Storage) -> list[int]:
    """Six looks: four with thumbnails, one stored as a large original only, one whose
    thumbnail is missing from storage (the sixth); their ids in order."""
    await migrate(dsn)
    db = await connect(dsn)
    try:
        article_id = await article("backfill")
        ids = [
            await add_look(storage, article_id, n, picture(name, n))
            for n, name in enumerate(["navy", "camel", "emerald", "cobalt"], start=1)
        ]
        original = garment_picture("#c8102e", size=(1024, 1536))
        ids.append(await add_original_only(storage, article_id, 5, original))
        missing = await add_look(storage, article_id, 6, picture("pink", 6))
        image = await Image.objects().get(Image.id == missing)
        await storage.delete(image.thumb_key)
        ids.append(missing)
        return ids
    finally:
        await close(db)


async def _palettes(dsn: str) -> dict[int, list[tuple[int, int, str]]]:
    """Each image's stored rows: (row id, rank, name)."""
    db = await connect(dsn)
    try:
        found: dict[int, list[tuple[int, int, str]]] = {}
        for row in await ImageColour.select().order_by(ImageColour.id):
            found.setdefault(int(row["image_id"]), []).append(
                (int(row["id"]), int(row["rank"]), str(row["name"]))
            )
        return found
    finally:
        await close(db)


def test_the_backfill_resumes_where_it_stopped(
    any_dsn: str, tmp_path: Path, storage: Storage
) -> None:
    ids = asyncio.run(_seed(any_dsn, storage))

    first = rk(any_dsn, tmp_path, "colours", "backfill", "--limit", "3", "--batch", "2")
    assert first.exit_code == 0, first.stderr
    assert first.stdout.splitlines() == [
        "colours: 2 of 3 images measured, 0 failed",
        "colours: 3 of 3 images measured, 0 failed",
        "done: colours: 3 of 3 images measured, 0 failed",
    ]
    after_first = asyncio.run(_palettes(any_dsn))
    assert set(after_first) == set(ids[:3])

    second = rk(any_dsn, tmp_path, "colours", "backfill")
    assert second.exit_code == 0, second.stderr
    assert second.stdout.splitlines()[-1] == "done: colours: 2 of 3 images measured, 1 failed"
    after_second = asyncio.run(_palettes(any_dsn))
    assert set(after_second) == set(ids[:5])
    assert {i: after_second[i] for i in ids[:3]} == after_first  # not measured again
    assert [after_second[i][0][2] for i in ids[:5]] == ["navy", "camel", "emerald", "cobalt", "red"]

    third = rk(any_dsn, tmp_path, "colours", "backfill")
    assert third.exit_code == 0, third.stderr
    assert third.stdout.splitlines()[-1] == "done: colours: 0 of 1 images measured, 1 failed"
    assert asyncio.run(_palettes(any_dsn)) == after_second


def test_bad_input_is_one_line_and_exit_2(sqlite_dsn: str, tmp_path: Path) -> None:
    for args, message in [
        (["--batch", "0"], "--batch must be between 1 and 1000, not 0"),
        (["--batch", "5000"], "--batch must be between 1 and 1000, not 5000"),
        (["--limit", "-1"], "--limit must be 0 (no limit) or more, not -1"),
    ]:
        result = rk(sqlite_dsn, tmp_path, "colours", "backfill", *args)
        assert result.exit_code == 2
        assert result.stderr.strip().splitlines() == [f"error: {message}"]
    unreachable = rk("postgresql://nobody@127.0.0.1:9/none", tmp_path, "colours", "backfill")
    assert unreachable.exit_code == 2
    assert len(unreachable.stderr.strip().splitlines()) == 1
    assert unreachable.stderr.startswith("error: cannot open the database")
