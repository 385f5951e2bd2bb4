"""A tiny CLIP-like model whose two towers agree on a handful of fashion concepts.

Built by the tests (``onnx`` helper graphs, no download), saved as a model directory the
``clip`` embedder loads like any export: ``vision.onnx``, ``text.onnx``, ``tokenizer.json``
and its configs, with preprocessing that keeps pixels in 0…1 (mean 0, std 1).

Concepts, each one axis of the 16-d space (``AXES``):

- ``dress``: a red garment (the image's mean red above its green and blue);
- ``coat``: a blue garment (the mean blue above red and green);
- ``stripe``: stripes (the mean jump between neighbouring pixels much larger across one
  axis than the other);
- ``plaid``: a grid (jumps along both axes);
- ``plain``: a flat field (no jumps).

The text tower sums one row per word: the words of ``WORDS`` give their concept's axis,
every other word a short generic vector (axis 5), so a prompt's vector leans to the
concepts it names. ``concept_picture`` draws images with known concepts.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

DIM = 16
SIZE = 32
AXES = {"dress": 0, "coat": 1, "stripe": 2, "plaid": 3, "plain": 4}
GENERIC = 5
WORDS = {
    "dress": "dress",
    "coat": "coat",
    "stripe": "stripe",
    "striped": "stripe",
    "plaid": "plaid",
    "tartan": "plaid",
    "plain": "plain",
    "solid": "plain",
}
GENERIC_WEIGHT = 0.05
"""How much each unknown word (and each image) leans to the generic axis."""
EDGE_GAIN = 4.0
"""How strongly a mean jump between neighbouring pixels counts as a pattern."""
MODEL_ID = "rk-test/concept-clip"
COLOURS = {"red": (200, 20, 30), "blue": (20, 40, 200), "grey": (128, 128, 128)}


def _vision_graph() -> bytes:
    """``pixel_values`` (B, 3, 32, 32) → ``image_embeds`` (B, 16) from colour and edges."""
    from onnx import TensorProto, helper, numpy_helper

    def const(name: str, value: np.ndarray) -> Any:
        return numpy_helper.from_array(value, name)

    colour = np.array([[1.0, -0.5], [-0.5, -0.5], [-0.5, 1.0]], dtype=np.float32)
    place = np.zeros((5, DIM), dtype=np.float32)
    for row, axis in enumerate(AXES.values()):
        place[row, axis] = 1.0
    bias = np.zeros(DIM, dtype=np.float32)
    bias[GENERIC] = GENERIC_WEIGHT
    inits = [
        const("colour_w", colour),
        const("place", place),
        const("bias", bias),
        const("gain", np.array(EDGE_GAIN, dtype=np.float32)),
        const("one", np.array(1.0, dtype=np.float32)),
        const("s0", np.array([0], dtype=np.int64)),
        const("s1", np.array([1], dtype=np.int64)),
        const("e_last", np.array([SIZE - 1], dtype=np.int64)),
        const("e_all", np.array([SIZE], dtype=np.int64)),
        const("ax2", np.array([2], dtype=np.int64)),
        const("ax3", np.array([3], dtype=np.int64)),
    ]
    node = helper.make_node
    nodes = [
        node("ReduceMean", ["pixel_values"], ["means"], axes=[2, 3], keepdims=0),
        node("MatMul", ["means", "colour_w"], ["colour_raw"]),
        node("Relu", ["colour_raw"], ["colours"]),
    ]
    for name, axis in (("dx", "ax3"), ("dy", "ax2")):
        nodes += [
            node("Slice", ["pixel_values", "s1", "e_all", axis], [f"{name}_a"]),
            node("Slice", ["pixel_values", "s0", "e_last", axis], [f"{name}_b"]),
            node("Sub", [f"{name}_a", f"{name}_b"], [f"{name}_d"]),
            node("Abs", [f"{name}_d"], [f"{name}_abs"]),
            node("ReduceMean", [f"{name}_abs"], [f"{name}_c"], axes=[2, 3], keepdims=0),
            node("ReduceMean", [f"{name}_c"], [f"{name}_m"], axes=[1], keepdims=1),
            node("Mul", [f"{name}_m", "gain"], [name]),
        ]
    nodes += [
        node("Sub", ["dx", "dy"], ["skew"]),
        node("Abs", ["skew"], ["stripe"]),
        node("Min", ["dx", "dy"], ["grid"]),
        node("Add", ["dx", "dy"], ["edges"]),
        node("Sub", ["one", "edges"], ["flat_raw"]),
        node("Relu", ["flat_raw"], ["flat"]),
        node("Concat", ["colours", "stripe", "grid", "flat"], ["features"], axis=1),
        node("MatMul", ["features", "place"], ["placed"]),
        node("Add", ["placed", "bias"], ["image_embeds"]),
    ]
    graph = helper.make_graph(
        nodes,
        "concept_vision",
        [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["B", 3, SIZE, SIZE])],
        [helper.make_tensor_value_info("image_embeds", TensorProto.FLOAT, ["B", DIM])],
        inits,
    )
    return _model_bytes(graph)


def _vocab() -> dict[str, int]:
    """The tokenizer's words: pad, unknown, then the concept words."""
    return {"[PAD]": 0, "[UNK]": 1, **{word: n + 2 for n, word in enumerate(WORDS)}}


def _text_graph() -> bytes:
    """``input_ids``, ``attention_mask`` (B, L) → ``text_embeds`` (B, 16): summed word rows."""
    from onnx import TensorProto, helper, numpy_helper

    vocab = _vocab()
    table = np.zeros((len(vocab), DIM), dtype=np.float32)
    table[vocab["[UNK]"], GENERIC] = GENERIC_WEIGHT
    for word, concept in WORDS.items():
        table[vocab[word], AXES[concept]] = 1.0
    node = helper.make_node
    nodes = [
        node("Gather", ["table", "input_ids"], ["rows"], axis=0),
        node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        node("Unsqueeze", ["mask_f", "ax2"], ["mask3"]),
        node("Mul", ["rows", "mask3"], ["kept"]),
        node("ReduceSum", ["kept", "ax1"], ["text_embeds"], keepdims=0),
    ]
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["B", "L"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["B", "L"])
    graph = helper.make_graph(
        nodes,
        "concept_text",
        [ids, mask],
        [helper.make_tensor_value_info("text_embeds", TensorProto.FLOAT, ["B", DIM])],
        [
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "ax2"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "ax1"),
        ],
    )
    return _model_bytes(graph)


def _model_bytes(graph: Any) -> bytes:
    """The serialised ONNX model of ``graph`` at opset 17."""
    from onnx import checker, helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    checker.check_model(model)
    return bytes(model.SerializeToString())


def _tokenizer_json() -> str:
    """A lowercasing word-level tokenizer over ``_vocab`` (unknown words → ``[UNK]``)."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel

    tokenizer = Tokenizer(WordLevel(_vocab(), unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return str(tokenizer.to_str())


def build_concept_clip(root: Path) -> Path:
    """Write the model directory under ``root`` (created); the directory."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "vision.onnx").write_bytes(_vision_graph())
    (root / "text.onnx").write_bytes(_text_graph())
    (root / "tokenizer.json").write_text(_tokenizer_json(), encoding="utf-8")
    files = {
        "config.json": {"model_id": MODEL_ID, "vision_config": {"image_size": SIZE}},
        "tokenizer_config.json": {"model_max_length": 16, "pad_token": "[PAD]"},
        "preprocessor_config.json": {
            "crop_size": {"height": SIZE, "width": SIZE},
            "do_center_crop": True,
            "do_convert_rgb": True,
            "do_normalize": True,
            "do_rescale": True,
            "do_resize": True,
            "image_mean": [0.0, 0.0, 0.0],
            "image_std": [1.0, 1.0, 1.0],
            "resample": 3,
            "rescale_factor": 1 / 255,
            "size": {"shortest_edge": SIZE},
        },
    }
    for name, data in files.items():
        (root / name).write_text(json.dumps(data), encoding="utf-8")
    return root


def concept_picture(colour: str, pattern: str, size: int = 64) -> bytes:
    """A PNG of a ``colour`` (red, blue or grey) field, ``plain``, with vertical white
    ``stripe``s, or a white ``plaid`` grid: a 4 px line every 16 px at 64 px."""
    image = Image.new("RGB", (size, size), COLOURS[colour])
    draw = ImageDraw.Draw(image)
    band = size // 16
    for start in range(0, size, 4 * band):
        if pattern in ("stripe", "plaid"):
            draw.rectangle([start, 0, start + band - 1, size], fill="white")
        if pattern == "plaid":
            draw.rectangle([0, start, size, start + band - 1], fill="white")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
