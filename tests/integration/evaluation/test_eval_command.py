"""``rk eval``: recall@k and MRR per embedding space, on SQLite and PostgreSQL (exact and
pgvector indexes).

Two colour models built by the tests embed the same archive: one sees colours as they are,
the other takes red for orange and orange for red (tests/support/colour_models.py), so the
figures each should get are known exactly and the sharp model must win.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rk.cli.main import app
from rk.core.api.plugins import RkPluginManager
from tests.integration.evaluation.archive import colour_archive
from tests.support.colour_models import COLOURS, MUDDLED, SHARP, build_colour_model, flat_picture


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sharp and the muddled colour model, as export directories."""
    root = tmp_path_factory.mktemp("models")
    return {
        "sharp": build_colour_model(root / "sharp", "rk-test/colours-sharp", SHARP),
        "muddled": build_colour_model(root / "muddled", "rk-test/colours-muddled", MUDDLED),
    }


def rk(dsn: str, tmp_path: Path, *args: str) -> Result:
    """``rk ARGS`` against the database under test, media under ``tmp_path/data``."""
    env = {"RK_DATABASE": dsn, "RK_DATA_DIR": str(tmp_path / "data")}
    return CliRunner().invoke(app, list(args), env=env)


def labels(tmp_path: Path, ids: dict[str, list[int]]) -> Path:
    """A labels CSV: each colour's word, and one red picture, expecting that colour's looks."""
    (tmp_path / "queries").mkdir()
    (tmp_path / "queries" / "red.jpg").write_bytes(flat_picture("red", 999))
    lines = ["query,image,expected"]
    lines += [f"{colour},,{' '.join(map(str, ids[colour]))}" for colour in COLOURS]
    lines.append(f",queries/red.jpg,{';'.join(map(str, ids['red']))}")
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_sharper_model_wins_by_the_figures_it_must_get(
    search_dsn: str, tmp_path: Path, models: dict[str, Path], plugin_manager: RkPluginManager
) -> None:
    ids = asyncio.run(colour_archive(search_dsn, list(models.values()), plugin_manager))
    csv = labels(tmp_path, ids)
    args = ["eval", str(csv), "--model", str(models["sharp"]), "--model", str(models["muddled"])]

    result = rk(search_dsn, tmp_path, *args, "--json")

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["k"] == [1, 5, 10]
    assert report["queries"] == 5
    spaces = {space["model"]: space for space in report["spaces"]}
    assert spaces["rk-test/colours-sharp"] == {
        "model": "rk-test/colours-sharp",
        "vectors": 25,
        "queries": 5,
        "recall": {"1": 1.0, "5": 1.0, "10": 1.0},
        "mrr": 1.0,
    }
    # "red" and "orange" find the other colour's five looks first, then their own at rank 6;
    # blue, green and the red picture are exact; the unpublished red looks never come back.
    muddled = spaces["rk-test/colours-muddled"]
    assert muddled["recall"] == {"1": 0.6, "5": 0.6, "10": 1.0}
    assert muddled["mrr"] == pytest.approx((3 + 2 / 6) / 5, abs=1e-4)
    assert "eval rk-test/colours-muddled: 5/5 queries" in result.stderr

    # the same model named twice is one space's embedder; cut-offs are sorted
    table = rk(search_dsn, tmp_path, *args, "--model", str(models["sharp"]), "--k", "10,1")
    assert table.exit_code == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["model", "vectors", "queries", "recall@1", "recall@10", "MRR"]
    assert lines[1].split() == ["rk-test/colours-sharp", "25", "5", "1.000", "1.000", "1.000"]
    assert lines[2].split() == ["rk-test/colours-muddled", "25", "5", "0.600", "1.000", "0.667"]


def test_bad_labels_and_models_are_one_line_and_exit_2(
    any_dsn: str, tmp_path: Path, models: dict[str, Path], plugin_manager: RkPluginManager
) -> None:
    ids = asyncio.run(colour_archive(any_dsn, list(models.values()), plugin_manager))
    red = " ".join(map(str, ids["red"]))
    (tmp_path / "broken.jpg").write_bytes(b"<html>not a picture</html>")
    stranger = build_colour_model(tmp_path / "stranger", "rk-test/not-in-the-archive")
    both = ["--model", str(models["sharp"]), "--model", str(models["muddled"])]
    cases = {
        "text,ids\nred,1\n": (
            both,
            "the header needs an 'expected' column and a 'query' or 'image' column",
        ),
        "": (both, "the header needs an 'expected' column and a 'query' or 'image' column"),
        "query,expected\n": (both, "no labelled queries"),
        "query,expected\nred,999999\n": (
            both,
            "expected ids that are no image of this archive: 999999",
        ),
        "query,expected\nred,12abc\n": (both, "row 2: expected id '12abc' is not an image id"),
        "query,image,expected\nred,broken.jpg,1\n": (
            both,
            "row 2: give a query or an image, exactly one of them",
        ),
        f"image,expected\nbroken.jpg,{red}\n": (
            both,
            "row 2: image 'broken.jpg' is not a picture that decodes",
        ),
        "image,expected\nhttp://example.com/a.jpg,1\n": (
            both,
            "row 2: image 'http://example.com/a.jpg' must be a local file, not a URL",
        ),
        "image,expected\nmissing.jpg,1\n": (
            both,
            "row 2: image 'missing.jpg': No such file or directory",
        ),
        f"query,expected\nred,{red}\n": (
            ["--model", str(models["sharp"])],
            "model rk-test/colours-muddled has vectors but no embedder here: pass --model with "
            "its export",
        ),
        f"query,expected\nblue,{red}\n": (
            [*both, "--model", str(stranger)],
            "model rk-test/not-in-the-archive has no vectors in this archive",
        ),
    }
    for n, (text, (options, message)) in enumerate(cases.items()):
        path = tmp_path / f"labels-{n}.csv"
        path.write_text(text)
        result = rk(any_dsn, tmp_path, "eval", str(path), *options)
        assert result.exit_code == 2, (text, result.stdout, result.stderr)
        assert result.stdout == ""
        last = result.stderr.strip().splitlines()[-1]
        assert last == f"error: {message}" or last == f"error: {path}: {message}", (text, last)
        assert "Traceback" not in result.stderr

    for bad_k in ("0", "1,x", "5000"):
        result = rk(any_dsn, tmp_path, "eval", str(path), *both, "--k", bad_k)
        assert result.exit_code == 2
        assert result.stderr.strip().splitlines()[-1].startswith(f"error: --k {bad_k!r}")
