"""Tiny two-tower ONNX models that know four colours, for tests that need meaningful recall.

The image tower averages the picture's normalised pixels, scores that mean colour against
a palette (red, orange, blue, green) by squared distance, softmaxes the scores (almost
one-hot for a flat-colour picture) and multiplies by the model's ``seen`` matrix. The text
tower looks up its first word: one-hot for a palette word. So a model's quality is set by
construction:

- ``SHARP`` sees each colour as itself: the text "red" scores red pictures 1 and others 0;
- ``MUDDLED`` sees red as mostly orange and orange as mostly red (0.6 / 0.8 mixes), so the
  text "red" ranks every orange picture (0.8) above every red one (0.6), while blue and
  green stay exact.

Both are written in the layout ``rk embed export`` makes (vision.onnx, text.onnx,
tokenizer.json, preprocessor_config.json, config.json with a ``model_id``), built here with
onnx's helpers: no torch, no download.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from PIL import Image

PALETTE = {
    "red": (200, 30, 40),
    "orange": (240, 140, 20),
    "blue": (40, 60, 190),
    "green": (40, 160, 60),
}
COLOURS = tuple(PALETTE)
SIZE = 32
MEAN = (0.48145466, 0.4578275, 0.40821073)
STD = (0.26862954, 0.26130258, 0.27577711)
SHARP = np.eye(4, dtype=np.float32)
MUDDLED = np.array(
    [[0.6, 0.8, 0, 0], [0.8, 0.6, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=np.float32
)
SHARPNESS = 20.0
VOCAB = {"[PAD]": 0, "[UNK]": 1, **{word: i + 2 for i, word in enumerate(COLOURS)}}


def flat_picture(colour: str, seed: int = 0, size: int = 48) -> bytes:
    """A JPEG of one palette colour with a little seeded grain."""
    rng = np.random.default_rng(seed)
    base = np.array(PALETTE[colour], dtype=np.int16)
    pixels = np.clip(base + rng.integers(-6, 7, (size, size, 3)), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=92)
    return out.getvalue()


def _normalised_palette() -> np.ndarray:
    """The palette in the image tower's input space: (rgb / 255 - mean) / std, one row each."""
    rgb = np.array(list(PALETTE.values()), dtype=np.float32) / 255
    return (rgb - np.array(MEAN, dtype=np.float32)) / np.array(STD, dtype=np.float32)


def _vision_graph(seen: np.ndarray) -> bytes:
    """pixel_values (N, 3, 32, 32) → image_embeds (N, 4)."""
    from onnx import TensorProto, helper, numpy_helper

    palette = _normalised_palette()
    weights = (2 * SHARPNESS * palette.T).astype(np.float32)
    bias = (-SHARPNESS * (palette**2).sum(axis=1)).astype(np.float32)
    nodes = [
        helper.make_node("ReduceMean", ["pixel_values", "axes"], ["mean"], keepdims=0),
        helper.make_node("MatMul", ["mean", "weights"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["share"], axis=1),
        helper.make_node("MatMul", ["share", "seen"], ["image_embeds"]),
    ]
    inits = [
        numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "axes"),
        numpy_helper.from_array(weights, "weights"),
        numpy_helper.from_array(bias, "bias"),
        numpy_helper.from_array(seen.astype(np.float32), "seen"),
    ]
    graph = helper.make_graph(
        nodes,
        "colour_vision",
        [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["n", 3, SIZE, SIZE])],
        [helper.make_tensor_value_info("image_embeds", TensorProto.FLOAT, ["n", 4])],
        inits,
    )
    return _serialise(graph)


def _text_graph() -> bytes:
    """input_ids (N, L) → text_embeds (N, 4): the first token's row (one-hot per colour)."""
    from onnx import TensorProto, helper, numpy_helper

    table = np.full((len(VOCAB), 4), 0.5, dtype=np.float32)  # padding and unknown words
    for i in range(len(COLOURS)):
        table[i + 2] = np.eye(4, dtype=np.float32)[i]
    nodes = [
        helper.make_node("Gather", ["input_ids", "first"], ["token"], axis=1),
        helper.make_node("Gather", ["table", "token"], ["text_embeds"], axis=0),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, dtype=np.int64), "first"),
        numpy_helper.from_array(table, "table"),
    ]
    graph = helper.make_graph(
        nodes,
        "colour_text",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["n", "length"])],
        [helper.make_tensor_value_info("text_embeds", TensorProto.FLOAT, ["n", 4])],
        inits,
    )
    return _serialise(graph)


def _serialise(graph: object) -> bytes:
    from onnx import checker, helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    checker.check_model(model)
    return bytes(model.SerializeToString())


def _tokenizer_json() -> str:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab=VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return str(tokenizer.to_str())


def build_colour_model(directory: Path, model_id: str, seen: np.ndarray = SHARP) -> Path:
    """Write a colour model seeing the palette through ``seen`` to ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vision.onnx").write_bytes(_vision_graph(seen))
    (directory / "text.onnx").write_bytes(_text_graph())
    (directory / "tokenizer.json").write_text(_tokenizer_json())
    (directory / "tokenizer_config.json").write_text(
        json.dumps({"pad_token": "[PAD]", "model_max_length": 8})
    )
    preprocessor = {
        "size": {"shortest_edge": SIZE},
        "crop_size": {"height": SIZE, "width": SIZE},
        "do_center_crop": True,
        "image_mean": list(MEAN),
        "image_std": list(STD),
        "resample": 3,
        "rescale_factor": 1 / 255,
    }
    (directory / "preprocessor_config.json").write_text(json.dumps(preprocessor))
    (directory / "config.json").write_text(json.dumps({"model_id": model_id}))
    return directory
