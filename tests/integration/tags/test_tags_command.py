"""``rk tags backfill`` and ``rk tags check``: tag from stored vectors, resume where a run
stopped, and refuse bad input with one line and exit code 2, on SQLite and PostgreSQL.

The command runs in this process through Typer's runner (the code of the console script).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner, Result

from rk.cli.main import app
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.tags import load_vocabulary
from tests.integration.tags.seed import reference, seed_vectors, tags_by_image


def rk(dsn: str, tmp_path: Path, *args: str, **env: str) -> Result:
    """``rk ARGS`` against the database under test, with ``env`` settings (``RK_…``)."""
    base = {"RK_DATABASE": dsn, "RK_DATA_DIR": str(tmp_path / "data")}
    return CliRunner().invoke(app, list(args), env={**base, **env})


async def _seed(dsn: str, model: Path) -> dict[int, set[str]]:
    await migrate(dsn)
    db = await connect(dsn)
    try:
        return await seed_vectors(reference(model), "command")
    finally:
        await close(db)


async def _tags(dsn: str) -> dict[int, set[str]]:
    db = await connect(dsn)
    try:
        return await tags_by_image()
    finally:
        await close(db)


def test_the_backfill_tags_from_stored_vectors_and_resumes(
    any_dsn: str, tmp_path: Path, concept_model: Path
) -> None:
    expected = asyncio.run(_seed(any_dsn, concept_model))
    model = {"RK_VISION_MODEL": str(concept_model)}
    first = rk(any_dsn, tmp_path, "tags", "backfill", "--limit", "3", "--batch", "2", **model)
    assert first.exit_code == 0, first.stderr
    lines = first.stdout.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "tags: 2 of 3 images tagged",
        "tags: 3 of 3 images tagged",
        "done: tags: 3 of 3 images tagged",
    ]
    assert lines[-1].endswith(
        f"(model rk-test/concept-clip, vocabulary {load_vocabulary().digest[:12]})"
    )
    assert set(asyncio.run(_tags(any_dsn))) <= set(sorted(expected)[:3])

    second = rk(any_dsn, tmp_path, "tags", "backfill", **model)
    assert second.exit_code == 0, second.stderr
    assert second.stdout.splitlines()[-1].startswith("done: tags: 2 of 2 images tagged")
    assert asyncio.run(_tags(any_dsn)) == expected
    third = rk(any_dsn, tmp_path, "tags", "backfill", **model)
    assert third.stdout.splitlines()[-1].startswith("done: tags: 0 of 0 images tagged (0 tags)")


def test_check_and_bad_input_are_one_line_and_exit_2(
    sqlite_dsn: str, tmp_path: Path, concept_model: Path
) -> None:
    checked = rk(sqlite_dsn, tmp_path, "tags", "check")
    assert checked.exit_code == 0
    assert checked.stdout.startswith("vocabulary: 95 tags (garment 28, silhouette 14,")
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    twice = tmp_path / "twice.csv"
    twice.write_text("name,group,threshold,margin,prompts\ndress,garment,0.2,0,a gown\n")
    model = {"RK_VISION_MODEL": str(concept_model)}
    for args, env, message in [
        (["check"], {"RK_TAGS_VOCABULARY_EXTRA": str(empty)}, f"{empty}: no tags"),
        (["check"], {"RK_TAGS_VOCABULARY_EXTRA": str(twice)}, "tag 'dress' is already in"),
        (["backfill"], {**model, "RK_TAGS_VOCABULARY_EXTRA": str(twice)}, "tag 'dress'"),
        (["backfill", "--batch", "0"], model, "--batch must be between 1 and 5000, not 0"),
        (["backfill", "--limit", "-1"], model, "--limit must be 0 (no limit) or more, not -1"),
        (["backfill"], {}, "vision.model is not set"),
        (["backfill"], {"RK_VISION_MODEL": str(tmp_path / "none")}, "model directory not found"),
    ]:
        result = rk(sqlite_dsn, tmp_path, "tags", *args, **env)
        assert result.exit_code == 2, (args, result.stdout)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("error: "), lines
        assert message in lines[0], lines


def test_the_backend_refuses_to_start_with_a_bad_vocabulary(
    sqlite_dsn: str, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("name,group,threshold,margin,prompts\nsilk,material,2,0,silk\n")
    result = rk(sqlite_dsn, tmp_path, "serve-backend", RK_TAGS_VOCABULARY_EXTRA=str(bad))
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {bad} line 2: threshold '2' is not between -1 and 1"
    ]
