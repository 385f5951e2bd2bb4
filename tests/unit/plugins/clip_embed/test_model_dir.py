"""Finding the parts of a CLIP export directory and the model's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rk.plugins.clip_embed.model_dir import ModelDirError, ModelFiles
from tests.models import samples


def test_the_committed_export_has_both_towers() -> None:
    files = ModelFiles.locate(samples.TINY_CLIP)
    assert files.vision.name == "vision.onnx"
    assert files.text is not None
    assert files.text.name == "text.onnx"
    assert files.tokenizer is not None
    assert files.tokenizer.name == "tokenizer.json"
    assert files.model_id() == "rk-test/tiny-clip"
    assert files.preprocessor()["crop_size"] == {"height": 32, "width": 32}


def test_a_text_graph_without_its_tokenizer_is_no_text_tower(tmp_path: Path) -> None:
    files = ModelFiles.locate(samples.copy_model(tmp_path / "m", without=("tokenizer.json",)))
    assert files.text is None
    assert files.tokenizer is None


def test_optimum_style_file_names_are_found(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "m")
    (model / "vision.onnx").rename(model / "vision_model.onnx")
    (model / "text.onnx").rename(model / "text_model.onnx")
    files = ModelFiles.locate(model)
    assert files.vision.name == "vision_model.onnx"
    assert files.text is not None
    assert files.text.name == "text_model.onnx"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"model_id": "openai/clip-vit-base-patch32"}, "openai/clip-vit-base-patch32"),
        ({"_name_or_path": "laion/CLIP-ViT-B-32"}, "laion/CLIP-ViT-B-32"),
        ({"_name_or_path": "/home/someone/checkpoints/x"}, "exported"),
        ({}, "exported"),
    ],
)
def test_model_id_sources(tmp_path: Path, config: dict, expected: str) -> None:
    model = samples.copy_model(tmp_path / "exported", without=("config.json",))
    (model / "config.json").write_text(json.dumps(config))
    assert ModelFiles.locate(model).model_id() == expected


def test_an_rk_model_json_overrides_config_json(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "m")
    (model / "rk_model.json").write_text(json.dumps({"model_id": "acme/runway-clip-v2"}))
    assert ModelFiles.locate(model).model_id() == "acme/runway-clip-v2"


def test_unreadable_config_is_a_one_line_error(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "m")
    (model / "config.json").write_text("{not json")
    with pytest.raises(ModelDirError, match=r"config\.json: not readable JSON"):
        ModelFiles.locate(model).model_id()
