"""Export a SigLIP checkpoint to the same ONNX layout as CLIP's, with optimum.

SigLIP has no separate projection: each tower's ``pooler_output`` (the vision tower's
attention-pooling head, the text tower's head over the last token) is the embedding that
``get_image_features`` / ``get_text_features`` return, so the towers are exported as
``SiglipVisionModel`` / ``SiglipTextModel`` with that one output. SigLIP was trained on
texts padded to ``max_position_embeddings`` without an attention mask, and pools the last
position, so the text graph takes ``input_ids`` only, at that fixed length (the embedder pads
to a graph's static length). The image processor (resize to height × width, mean/std 0.5,
no crop) is saved beside them for the embedder to read.
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path
from typing import Any

from rk.plugins.clip_embed.export import (
    TEXT_FILE,
    VISION_FILE,
    ExportError,
    ExportReport,
    check_outputs,
    default_model_id,
    load,
)
from rk.plugins.clip_embed.model_dir import read_json

log = logging.getLogger("rk.plugins.clip_embed")


def _configs() -> tuple[type, type]:
    """optimum's SigLIP tower configs, narrowed to the pooled embedding."""
    try:
        from optimum.exporters.onnx.model_configs import (
            SiglipTextOnnxConfig,
            SiglipVisionModelOnnxConfig,
        )
    except ImportError as exc:
        raise ExportError(f"this optimum cannot export SigLIP: {exc}") from None

    class VisionPooled(SiglipVisionModelOnnxConfig):
        """pixel_values → the pooled image embedding only."""

        @property
        def outputs(self) -> dict[str, dict[int, str]]:
            return {"pooler_output": {0: "batch_size"}}

    class TextPooled(SiglipTextOnnxConfig):
        """input_ids at a fixed length → the pooled text embedding only."""

        @property
        def inputs(self) -> dict[str, dict[int, str]]:
            return {"input_ids": {0: "batch_size"}}

        @property
        def outputs(self) -> dict[str, dict[int, str]]:
            return {"pooler_output": {0: "batch_size"}}

    return VisionPooled, TextPooled


def _export_tower(
    model: Any, config_cls: type, out: Path, opset: int | None, atol: float, shapes: dict[str, int]
) -> None:
    """Export one tower at ``shapes`` and check it against torch."""
    from optimum.exporters.onnx import convert

    onnx_config = config_cls(model.config, task="feature-extraction")
    _, outputs = convert.export(
        model,
        onnx_config,
        out,
        opset=opset or onnx_config.DEFAULT_ONNX_OPSET,
        input_shapes=shapes,
    )
    check_outputs(convert, onnx_config, model, out, outputs, atol, shapes)


def export_siglip(
    model: str,
    out: Path,
    *,
    model_id: str | None = None,
    text: bool = True,
    opset: int | None = None,
    atol: float = 1e-4,
) -> ExportReport:
    """Export the SigLIP ``model`` (hub id or local directory) to ``out``."""
    import torch
    import transformers as tf

    vision_cls, text_cls = _configs()
    config = load(lambda: tf.SiglipConfig.from_pretrained(model), model, "not a SigLIP checkpoint")
    model_id = model_id or default_model_id(model)
    length = int(config.text_config.max_position_embeddings)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's warnings are fine for a fixed graph
        vision = load(
            lambda: tf.SiglipVisionModel.from_pretrained(model, config=config.vision_config),
            model,
            "cannot load the image tower",
        )
        out.mkdir(parents=True, exist_ok=True)
        _export_tower(vision.eval(), vision_cls, out / VISION_FILE, opset, atol, {})
        if text:
            tower = load(
                lambda: tf.SiglipTextModel.from_pretrained(model, config=config.text_config),
                model,
                "cannot load the text tower",
            )
            tokenizer = load(lambda: tf.AutoTokenizer.from_pretrained(model), model, "no tokenizer")
            shapes = {"sequence_length": length}
            _export_tower(tower.eval(), text_cls, out / TEXT_FILE, opset, atol, shapes)
            tokenizer.save_pretrained(out, legacy_format=False)
            if not (out / "tokenizer.json").is_file():
                raise ExportError(f"{model}: the tokenizer has no fast (tokenizer.json) form")
        _save_processor(tf, model, config, out)
    config.save_pretrained(out)
    saved = read_json(out / "config.json")
    saved["model_id"] = model_id
    (out / "config.json").write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    dim = int(config.vision_config.hidden_size)
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    log.info("exported SigLIP %s (dim %d) to %s", model_id, dim, out)
    return ExportReport(model_id=model_id, out=out, dim=dim, files=files)


def _save_processor(tf: Any, model: str, config: Any, out: Path) -> None:
    """The checkpoint's image processor, else SigLIP's defaults at the tower's image size."""
    try:
        processor = tf.SiglipImageProcessor.from_pretrained(model)
    except OSError:
        size = int(config.vision_config.image_size)
        processor = tf.SiglipImageProcessor(size={"height": size, "width": size})
    processor.save_pretrained(out)
