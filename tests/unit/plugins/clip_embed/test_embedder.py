"""ClipEmbedder on the committed tiny CLIP, CPU provider: numbers, shapes, skips, batching."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from rk.core.api.embedders import Embedder
from rk.core.api.errors import ConfigError, NoTextTower
from rk.core.api.lookups import get_embedder
from rk.core.api.plugins import RkPluginManager
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.plugins.clip_embed.model_dir import ModelDirError
from rk.plugins.clip_embed.providers import ProviderError
from tests.models import samples

REF = samples.reference()
NAMES = list(REF["images"])

MakeEmbedder = Callable[..., ClipEmbedder]


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_registered_as_clip_through_the_entry_point(plugin_manager: RkPluginManager) -> None:
    assert get_embedder("clip", plugin_manager) is ClipEmbedder


def test_satisfies_the_embedder_protocol(embedder: ClipEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.provider == "CPUExecutionProvider"
    assert embedder.requested_providers == ["CPUExecutionProvider"]


def test_model_id_and_dim_come_from_the_files(embedder: ClipEmbedder) -> None:
    assert (
        (embedder.model_id, embedder.dim)
        == (REF["model_id"], REF["dim"])
        == ("rk-test/tiny-clip", 16)
    )
    assert embedder.has_text


def test_model_id_falls_back_to_the_directory_name(
    tmp_path: Path, make_embedder: MakeEmbedder
) -> None:
    model = samples.copy_model(tmp_path / "my-clip", without=("config.json",))
    assert make_embedder(model).model_id == "my-clip"


def test_image_vectors_match_torch_reference(embedder: ClipEmbedder) -> None:
    result = embedder.embed_images([samples.image_bytes(name) for name in NAMES])
    assert result.dim == 16
    assert result.indexes == [0, 1, 2]
    assert result.skipped == []
    for vector, name in zip(result.vectors, NAMES, strict=True):
        np.testing.assert_allclose(vector, REF["images"][name], atol=1e-4)
        assert abs(np.linalg.norm(vector) - 1) < 1e-5


def test_text_vectors_match_torch_reference(embedder: ClipEmbedder) -> None:
    texts = list(REF["texts"])
    vectors = embedder.embed_texts(texts)
    assert len(vectors) == len(texts)
    for vector, text in zip(vectors, texts, strict=True):
        np.testing.assert_allclose(vector, REF["texts"][text], atol=1e-4)
        assert abs(np.linalg.norm(vector) - 1) < 1e-5


def test_long_texts_are_truncated_not_rejected(embedder: ClipEmbedder) -> None:
    long = " ".join(["a red dress with black leather boots"] * 20)
    (vector,) = embedder.embed_texts([long])
    assert len(vector) == 16
    assert abs(np.linalg.norm(vector) - 1) < 1e-5


def test_no_text_tower_without_text_files(tmp_path: Path, make_embedder: MakeEmbedder) -> None:
    embedder = make_embedder(samples.copy_model(tmp_path / "vision-only", without=("text.onnx",)))
    assert not embedder.has_text
    with pytest.raises(NoTextTower, match="no text tower"):
        embedder.embed_texts(["a red dress"])
    assert embedder.embed_images([samples.image_bytes("rings.png")]).indexes == [0]


def test_bad_inputs_are_skipped_by_index(embedder: ClipEmbedder) -> None:
    good = samples.image_bytes("gradient.png")
    batch = [
        samples.truncated_jpeg(),
        good,
        samples.HTML,
        b"",
        samples.encode(Image.new("RGB", (1, 1), (255, 0, 0)), "PNG"),
        samples.png_claiming(20_000, 20_000),
        samples.jpeg_claiming(20_000, 20_000),
        good,
    ]
    result = embedder.embed_images(batch)
    assert result.indexes == [1, 4, 7]
    assert result.skipped == [0, 2, 3, 5, 6]
    np.testing.assert_allclose(result.vectors[0], REF["images"]["gradient.png"], atol=1e-4)
    np.testing.assert_allclose(result.vectors[2], result.vectors[0], atol=1e-6)


def test_all_bad_and_empty_batches(embedder: ClipEmbedder) -> None:
    assert embedder.embed_images([b"", samples.HTML]).skipped == [0, 1]
    empty = embedder.embed_images([])
    assert (empty.dim, empty.vectors, empty.indexes, empty.skipped) == (16, [], [], [])


class RecordingSession:
    """Wraps the real onnxruntime session to record the batch size of every run."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.batches: list[int] = []

    def run(self, names: list[str], feeds: dict[str, np.ndarray]) -> Any:
        self.batches.append(next(iter(feeds.values())).shape[0])
        return self.session.run(names, feeds)


def test_batches_are_sized_by_vision_batch(make_embedder: MakeEmbedder) -> None:
    images = [samples.image_bytes(NAMES[i % 3]) for i in range(7)]
    images[3] = samples.HTML
    small = make_embedder(batch=2)
    recorder = RecordingSession(small.session)
    small.session = recorder
    result = small.embed_images(images)
    assert recorder.batches == [2, 1, 2, 1]  # [0,1] [2,(3 skipped)] [4,5] [6]
    assert result.skipped == [3]
    assert result.indexes == [0, 1, 2, 4, 5, 6]
    whole = make_embedder(batch=32).embed_images(images)
    np.testing.assert_allclose(result.vectors, whole.vectors, atol=1e-6)


def test_similar_images_are_nearer_than_different_ones(embedder: ClipEmbedder) -> None:
    """A picture re-encoded as JPEG and resized stays nearer to itself than to another picture."""
    for name in NAMES:
        original = samples.image_bytes(name)
        copy = samples.reencoded_resized(original, (96, 80))
        others = [samples.image_bytes(other) for other in NAMES if other != name]
        vectors = embedder.embed_images([original, copy, *others]).vectors
        near = cosine(vectors[0], vectors[1])
        assert near > 0.99
        assert all(near > cosine(vectors[0], other) for other in vectors[2:]), name


def test_concurrent_callers_get_their_own_results(embedder: ClipEmbedder) -> None:
    expected = {name: REF["images"][name] for name in NAMES}
    errors: list[str] = []

    def worker(name: str) -> None:
        for _ in range(5):
            (vector,) = embedder.embed_images([samples.image_bytes(name)]).vectors
            if not np.allclose(vector, expected[name], atol=1e-4):
                errors.append(name)

    threads = [threading.Thread(target=worker, args=(name,)) for name in NAMES * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"model": ""}, ModelDirError, "no CLIP model configured"),
        ({"model": "/does/not/exist"}, ModelDirError, "model directory not found"),
        ({"providers": ["tensorrt"]}, ProviderError, "not available in this onnxruntime"),
        ({"batch": 0}, ConfigError, "at least 1"),
        ({"batch": "many"}, ConfigError, "vision settings"),
    ],
)
def test_bad_settings_are_one_line_errors(
    options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match) as info:
        ClipEmbedder({"model": str(samples.TINY_CLIP), **options})
    assert "\n" not in str(info.value)


def test_a_directory_without_an_image_tower(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "broken", without=("vision.onnx",))
    with pytest.raises(ModelDirError, match="no image tower"):
        ClipEmbedder({"model": str(model)})


def test_a_graph_that_is_not_onnx(tmp_path: Path) -> None:
    model = samples.copy_model(tmp_path / "broken")
    (model / "vision.onnx").write_bytes(b"not a protobuf")
    with pytest.raises(ModelDirError, match="cannot load ONNX model"):
        ClipEmbedder({"model": str(model)})
