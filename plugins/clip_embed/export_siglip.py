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

from pathlib import Path
from typing import Any

from rk.plugins.clip_embed.export import (
    ExportError,
    Towers,
    load,
)
from rk.plugins.clip_embed.onnx_configs import BATCH, narrowed


def _configs() -> tuple[type, type]:
    """optimum's SigLIP tower configs, narrowed to the pooled embedding."""
    try:
        from optimum.exporters.onnx.model_configs import (
            SiglipTextOnnxConfig,
            SiglipVisionModelOnnxConfig,
        )
    except ImportError as exc:
        raise ExportError(f"this optimum cannot export SigLIP: {exc}") from None

    pooled = {"pooler_output": BATCH}
    return (
        # pixel_values → the pooled image embedding only
        narrowed("VisionPooled", SiglipVisionModelOnnxConfig, pooled),
        # input_ids at a fixed length → the pooled text embedding only
        narrowed("TextPooled", SiglipTextOnnxConfig, pooled, {"input_ids": BATCH}),
    )


def siglip_towers(kit: dict[str, Any], model: str, out: Path) -> Towers:
    """What exporting the SigLIP ``model`` (hub id or local directory) to ``out`` writes."""
    tf = kit["transformers"]
    vision_cls, text_cls = _configs()
    config = load(lambda: tf.SiglipConfig.from_pretrained(model), model, "not a SigLIP checkpoint")
    return Towers(
        vision=lambda: tf.SiglipVisionModel.from_pretrained(model, config=config.vision_config),
        text=lambda: tf.SiglipTextModel.from_pretrained(model, config=config.text_config),
        vision_config=vision_cls,
        text_config=text_cls,
        save_processor=lambda: _save_processor(tf, model, config, out),
        config=config,
        dim=int(config.vision_config.hidden_size),
        text_shapes={"sequence_length": int(config.text_config.max_position_embeddings)},
        fast_tokenizer=True,
        family="SigLIP ",
    )


def _save_processor(tf: Any, model: str, config: Any, out: Path) -> None:
    """The checkpoint's image processor, else SigLIP's defaults at the tower's image size."""
    try:
        processor = tf.SiglipImageProcessor.from_pretrained(model)
    except OSError:
        size = int(config.vision_config.image_size)
        processor = tf.SiglipImageProcessor(size={"height": size, "width": size})
    processor.save_pretrained(out)
