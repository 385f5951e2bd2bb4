"""``rk embed info`` and ``rk embed export``'s input checks, as real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from tests.models import samples
from tests.support.cli import rk


def test_info_reports_model_dim_text_and_active_provider() -> None:
    result = rk("embed", "info", "--model", str(samples.TINY_CLIP), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "embedder": "clip",
        "model_id": "rk-test/tiny-clip",
        "dim": 16,
        "text_tower": True,
        "providers_requested": ["CPUExecutionProvider"],
        "provider_active": "CPUExecutionProvider",
    }


def test_info_reads_vision_model_from_the_config(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "vision-only", without=("text.onnx",))
    config = tmp_path / "config.yml"
    config.write_text(f"vision:\n  model: {model}\n  providers: [cpu]\n")
    result = rk("embed", "info", "--config", str(config))
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines())
    assert lines["model_id"] == "rk-test/tiny-clip"
    assert lines["text_tower"] == "no"
    assert lines["provider_active"] == "CPUExecutionProvider"


def test_info_without_a_model_is_exit_2_and_one_line(tmp_path: Path) -> None:
    result = rk("embed", "info", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: no CLIP model configured")


def test_export_refuses_a_non_empty_out_dir(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    result = rk("embed", "export", "--model", "x/y", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "directory is not empty" in result.stderr
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_export_of_a_directory_that_is_no_checkpoint(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = rk("embed", "export", "--model", str(tmp_path / "empty"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"error: {tmp_path / 'empty'}: not a loadable CLIP checkpoint (no config.json)"
    )
