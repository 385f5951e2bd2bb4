"""Export a CLIP checkpoint to the ONNX layout the clip embedder loads, with optimum.

``export_model`` reads the checkpoint's ``model_type`` and sends SigLIP checkpoints to
``export_siglip`` (same layout, SigLIP's pooled towers); everything else is exported as CLIP.

The layout: ``vision.onnx`` (pixel_values → projected ``image_embeds``), ``text.onnx``
(input_ids, attention_mask → projected ``text_embeds``), ``tokenizer.json``,
``preprocessor_config.json`` and ``config.json`` (with a ``model_id`` key).

Optimum's stock vision export has no projection layer, so the towers are exported as
``CLIPVisionModelWithProjection`` / ``CLIPTextModelWithProjection`` with ONNX configs that
name the projected outputs; ``projection_dim`` is copied into the tower configs first or
loading fails with a size mismatch. Needs the ``export`` extra (torch, transformers,
optimum); nothing here runs at serving time.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rk.core.api.errors import RkError
from rk.plugins.clip_embed.model_dir import read_json

log = logging.getLogger("rk.plugins.clip_embed")

VISION_FILE = "vision.onnx"
TEXT_FILE = "text.onnx"


class ExportError(RkError):
    """The export toolchain is missing, or the checkpoint cannot be exported."""


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    model_id: str
    out: Path
    dim: int
    files: list[str] = field(default_factory=list)


def _toolchain() -> dict[str, Any]:
    """The lazily imported export modules; a missing extra is one clear error."""
    try:
        import torch
        import transformers
        from optimum.exporters.onnx import convert
        from optimum.exporters.onnx.model_configs import (
            CLIPTextWithProjectionOnnxConfig,
            CLIPVisionModelOnnxConfig,
        )
    except ImportError as exc:
        raise ExportError(
            f"model export needs the export extra (pip install 'rk[export]'): {exc}"
        ) from None

    class VisionWithProjection(CLIPVisionModelOnnxConfig):
        """pixel_values → the projected image embedding only."""

        @property
        def outputs(self) -> dict[str, dict[int, str]]:
            return {"image_embeds": {0: "batch_size"}}

    class TextWithProjection(CLIPTextWithProjectionOnnxConfig):
        """input_ids + attention_mask → the projected text embedding only."""

        @property
        def inputs(self) -> dict[str, dict[int, str]]:
            axes = {0: "batch_size", 1: "sequence_length"}
            return {"input_ids": dict(axes), "attention_mask": dict(axes)}

        @property
        def outputs(self) -> dict[str, dict[int, str]]:
            return {"text_embeds": {0: "batch_size"}}

    return {
        "torch": torch,
        "transformers": transformers,
        "convert": convert,
        "vision_config": VisionWithProjection,
        "text_config": TextWithProjection,
    }


def default_model_id(model: str) -> str:
    """A hub id as given; a local directory's recorded name, else the directory name."""
    path = Path(model)
    if not path.is_dir():
        return model
    config = read_json(path / "config.json")
    recorded = config.get("model_id") or config.get("_name_or_path") or ""
    return str(recorded) if recorded and not Path(str(recorded)).is_absolute() else path.name


def _export_tower(
    kit: dict[str, Any], model: Any, config_cls: type, out: Path, opset: int | None, atol: float
) -> list[str]:
    """Export one tower to ``out`` and check it against torch; returns its output names."""
    onnx_config = config_cls(model.config, task="feature-extraction")
    convert = kit["convert"]
    _, outputs = convert.export(
        model, onnx_config, out, opset=opset or onnx_config.DEFAULT_ONNX_OPSET
    )
    check_outputs(convert, onnx_config, model, out, outputs, atol, {})
    return list(outputs)


def check_outputs(
    convert: Any,
    onnx_config: Any,
    model: Any,
    out: Path,
    outputs: list[str],
    atol: float,
    shapes: dict[str, int],
) -> None:
    """ExportError unless the graph at ``out`` gives torch's outputs within ``atol``."""
    try:
        convert.validate_model_outputs(
            onnx_config,
            model,
            out,
            outputs,
            atol=atol,
            input_shapes=shapes or None,
            use_subprocess=False,
        )
    except ValueError as exc:  # optimum's Shape/Atol/OutputMatch errors are ValueErrors
        message = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise ExportError(f"{out.name} does not match torch: {message}") from None


def export_model(
    model: str,
    out: Path,
    *,
    model_id: str | None = None,
    text: bool = True,
    opset: int | None = None,
) -> ExportReport:
    """Export a CLIP or SigLIP checkpoint, as its ``config.json``'s ``model_type`` says."""
    _check_source(model)
    kit = _toolchain()
    config = load(
        lambda: kit["transformers"].AutoConfig.from_pretrained(model),
        model,
        "not a loadable checkpoint",
    )
    if config.model_type == "siglip":
        from rk.plugins.clip_embed.export_siglip import export_siglip

        return export_siglip(model, out, model_id=model_id, text=text, opset=opset)
    return export_clip(model, out, model_id=model_id, text=text, opset=opset)


def export_clip(
    model: str,
    out: Path,
    *,
    model_id: str | None = None,
    text: bool = True,
    opset: int | None = None,
    atol: float = 1e-4,
) -> ExportReport:
    """Export ``model`` (hub id or local directory) to ``out``; see the module docstring."""
    _check_source(model)
    kit = _toolchain()
    tf = kit["transformers"]
    config = load(
        lambda: tf.CLIPConfig.from_pretrained(model), model, "not a loadable CLIP checkpoint"
    )
    if config.model_type != "clip":
        raise ExportError(
            f"{model}: expected a CLIP or SigLIP checkpoint, got model_type {config.model_type!r}"
        )
    model_id = model_id or default_model_id(model)
    vision_config = config.vision_config
    vision_config.projection_dim = config.projection_dim
    text_config = config.text_config
    text_config.projection_dim = config.projection_dim
    with warnings.catch_warnings(), kit["torch"].no_grad():
        # torch's tracer and transformers warn about things that are fine for a fixed graph.
        warnings.simplefilter("ignore")
        vision = load(
            lambda: tf.CLIPVisionModelWithProjection.from_pretrained(model, config=vision_config),
            model,
            "cannot load the image tower",
        )
        out.mkdir(parents=True, exist_ok=True)
        _export_tower(kit, vision.eval(), kit["vision_config"], out / VISION_FILE, opset, atol)
        if text:
            tower = load(
                lambda: tf.CLIPTextModelWithProjection.from_pretrained(model, config=text_config),
                model,
                "cannot load the text tower",
            )
            tokenizer = load(lambda: tf.AutoTokenizer.from_pretrained(model), model, "no tokenizer")
            _export_tower(kit, tower.eval(), kit["text_config"], out / TEXT_FILE, opset, atol)
            tokenizer.save_pretrained(out, legacy_format=False)
        _save_preprocessor(tf, model, vision_config, out)
    config.save_pretrained(out)
    saved = read_json(out / "config.json")
    saved["model_id"] = model_id
    (out / "config.json").write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    log.info("exported %s (dim %d) to %s", model_id, config.projection_dim, out)
    return ExportReport(model_id=model_id, out=out, dim=int(config.projection_dim), files=files)


def load(loader: Callable[[], Any], model: str, what: str) -> Any:
    """Run a transformers loader; its OSError/ValueError becomes a one-line ExportError."""
    try:
        return loader()
    except (OSError, ValueError) as exc:
        raise ExportError(f"{model}: {what} ({exc})".splitlines()[0]) from None


def _check_source(model: str) -> None:
    """Fail early on a local path that is not a checkpoint, rather than asking the hub."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ExportError(f"{model}: not a loadable CLIP checkpoint (no config.json)")
        return
    if path.exists() or model.startswith(("/", ".", "~")) or model.count("/") > 1:
        raise ExportError(f"{model}: no such checkpoint directory")


def _save_preprocessor(tf: Any, model: str, vision_config: Any, out: Path) -> None:
    """The checkpoint's image processor, else CLIP's defaults at the tower's image size."""
    try:
        processor = tf.CLIPImageProcessor.from_pretrained(model)
    except OSError:
        size = int(vision_config.image_size)
        processor = tf.CLIPImageProcessor(
            size={"shortest_edge": size}, crop_size={"height": size, "width": size}
        )
    processor.save_pretrained(out)
