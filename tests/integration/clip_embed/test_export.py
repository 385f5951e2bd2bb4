"""``rk embed export`` on a tiny random CLIP made here with transformers (no hub access).

Needs the export extra (torch, transformers, optimum); skipped with one line without it, except
under ``CI=true`` (``.ci/run`` installs it), where that fails.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.models import samples
from tests.support.cli import rk
from tests.support.skips import skip_or_fail


def missing_toolchain() -> list[str]:
    """The export modules that cannot be imported here."""
    missing = []
    for module in ("torch", "transformers", "optimum.exporters.onnx"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(module)
    return missing


MISSING = missing_toolchain()
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}  # the export must not need the hub
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _toolchain() -> None:
    """Skip without the export extra; fail under ``CI=true``, where .ci/run installs it."""
    if MISSING:
        skip_or_fail(f"export extra not installed ({', '.join(MISSING)})")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random tiny CLIP checkpoint (model, tokenizer, image processor) on disk."""
    from tests.models.make_tiny_clip import build_source

    directory = tmp_path_factory.mktemp("checkpoint") / "tiny-source"
    build_source(directory, seed=7)
    return directory


def test_export_matches_torch_on_images_and_texts(source: Path, tmp_path: Path) -> None:
    from rk.plugins.clip_embed.embedder import ClipEmbedder
    from tests.models.make_tiny_clip import TEXTS, make_images, reference

    out = tmp_path / "export"
    result = rk(
        "embed",
        "export",
        "--model",
        str(source),
        "--out",
        str(out),
        "--model-id",
        "t/x",
        env=OFFLINE,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "exported t/x (dim 16)" in result.stdout
    for name in ("vision.onnx", "text.onnx", "tokenizer.json", "preprocessor_config.json"):
        assert (out / name).is_file(), name
    images = make_images()
    expected = reference(source, images, TEXTS)
    embedder = ClipEmbedder({"model": str(out), "providers": ["cpu"]})
    try:
        assert (embedder.model_id, embedder.dim, embedder.has_text) == ("t/x", 16, True)
        got = embedder.embed_images(list(images.values()))
        np.testing.assert_allclose(got.vectors, list(expected["images"].values()), atol=1e-4)
        texts = embedder.embed_texts(TEXTS)
        np.testing.assert_allclose(texts, list(expected["texts"].values()), atol=1e-4)
    finally:
        embedder.close()


def test_image_only_export_without_a_preprocessor_config(source: Path, tmp_path: Path) -> None:
    """--no-text; a checkpoint with no preprocessor_config gets CLIP's defaults at its size."""
    from rk.plugins.clip_embed.embedder import ClipEmbedder
    from rk.plugins.clip_embed.export import export_clip

    bare = tmp_path / "bare"
    shutil.copytree(source, bare, ignore=shutil.ignore_patterns("preprocessor_config.json"))
    report = export_clip(str(bare), tmp_path / "out", text=False)
    assert report.model_id == "bare"
    assert "text.onnx" not in report.files
    written = json.loads((tmp_path / "out" / "preprocessor_config.json").read_text())
    assert written["crop_size"] == {"height": 32, "width": 32}
    embedder = ClipEmbedder({"model": str(tmp_path / "out")})
    try:
        assert not embedder.has_text
        result = embedder.embed_images([samples.image_bytes("rings.png")])
        assert result.indexes == [0]
    finally:
        embedder.close()


def test_a_checkpoint_without_weights_is_exit_2(source: Path, tmp_path: Path) -> None:
    (tmp_path / "no-weights").mkdir()
    shutil.copy(source / "config.json", tmp_path / "no-weights" / "config.json")
    result = rk(
        "embed",
        "export",
        "--model",
        str(tmp_path / "no-weights"),
        "--out",
        str(tmp_path / "o"),
        env=OFFLINE,
        timeout=300,  # importing torch, transformers and optimum alone takes a while
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ")
    assert "cannot load the image tower" in line
    assert not (tmp_path / "o").exists()


def test_a_siglip_checkpoint_exports_and_embeds_as_torch_does(tmp_path: Path) -> None:
    """A tiny random SigLIP: exported through optimum by ``rk embed export``, loaded by the
    embedder, whose images (resized to 32 × 32 without a crop, mean/std 0.5) and texts
    (padded to the model's 16 tokens) match torch's ``get_*_features``, at unit norm."""
    from rk.plugins.clip_embed.embedder import ClipEmbedder
    from tests.models.make_tiny_clip import make_images
    from tests.models.make_tiny_siglip import TEXTS, build_siglip, reference

    source = tmp_path / "tiny-siglip"
    build_siglip(source, seed=3)
    out = tmp_path / "export"
    result = rk(
        "embed", "export", "--model", str(source), "--out", str(out), env=OFFLINE, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "exported tiny-siglip (dim 32)" in result.stdout
    processor = json.loads((out / "preprocessor_config.json").read_text())
    assert processor["size"] == {"height": 32, "width": 32}
    assert "crop_size" not in processor
    images = make_images()  # 48 × 40: a crop would cut the sides that a squeeze keeps
    expected = reference(source, images, TEXTS)
    embedder = ClipEmbedder({"model": str(out), "providers": ["cpu"]})
    try:
        assert (embedder.model_id, embedder.dim, embedder.has_text) == ("tiny-siglip", 32, True)
        assert embedder.preprocess.crop == (32, 32)
        assert embedder.preprocess.mean == (0.5, 0.5, 0.5)
        got = embedder.embed_images(list(images.values()))
        assert np.asarray(got.vectors).shape == (3, 32)
        np.testing.assert_allclose(np.linalg.norm(got.vectors, axis=1), 1, atol=1e-5)
        np.testing.assert_allclose(got.vectors, expected["images"], atol=1e-4)
        texts = embedder.embed_texts(TEXTS)
        assert np.asarray(texts).shape == (3, 32)
        np.testing.assert_allclose(np.linalg.norm(texts, axis=1), 1, atol=1e-5)
        np.testing.assert_allclose(texts, expected["texts"], atol=1e-4)
    finally:
        embedder.close()
