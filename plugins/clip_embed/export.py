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
from rk.plugins.clip_embed.onnx_configs import BATCH, narrowed

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


def toolchain() -> dict[str, Any]:
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

    axes = {0: "batch_size", 1: "sequence_length"}
    text_inputs = {"input_ids": axes, "attention_mask": axes}
    return {
        "torch": torch,
        "transformers": transformers,
        "convert": convert,
        # pixel_values → the projected image embedding only
        "vision_config": narrowed(
            "VisionWithProjection", CLIPVisionModelOnnxConfig, {"image_embeds": BATCH}
        ),
        # input_ids + attention_mask → the projected text embedding only
        "text_config": narrowed(
            "TextWithProjection",
            CLIPTextWithProjectionOnnxConfig,
            {"text_embeds": BATCH},
            text_inputs,
        ),
    }


def default_model_id(model: str) -> str:
    """A hub id as given; a local directory's recorded name, else the directory name."""
    path = Path(model)
    if not path.is_dir():
        return model
    config = read_json(path / "config.json")
    recorded = config.get("model_id") or config.get("_name_or_path") or ""
    return str(recorded) if recorded and not Path(str(recorded)).is_absolute() else path.name


def export_tower(
    convert: Any,
    model: Any,
    config_cls: type,
    out: Path,
    opset: int | None,
    atol: float,
    shapes: dict[str, int],
) -> None:
    """Export one tower to ``out`` (at ``shapes``, when given) and check it against torch."""
    onnx_config = config_cls(model.config, task="feature-extraction")
    _, outputs = convert.export(
        model,
        onnx_config,
        out,
        opset=opset or onnx_config.DEFAULT_ONNX_OPSET,
        input_shapes=shapes or None,
    )
    check_outputs(convert, onnx_config, model, out, outputs, atol, shapes)


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
    kit = toolchain()
    config = load(
        lambda: kit["transformers"].AutoConfig.from_pretrained(model),
        model,
        "not a loadable checkpoint",
    )
    if config.model_type == "siglip":
        from rk.plugins.clip_embed.export_siglip import siglip_towers

        options = ExportOptions(model_id=model_id, text=text, opset=opset)
        return export_towers(kit, model, out, siglip_towers(kit, model, out), options)
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
    kit = toolchain()
    tf = kit["transformers"]
    config = load(
        lambda: tf.CLIPConfig.from_pretrained(model), model, "not a loadable CLIP checkpoint"
    )
    if config.model_type != "clip":
        raise ExportError(
            f"{model}: expected a CLIP or SigLIP checkpoint, got model_type {config.model_type!r}"
        )
    vision_config = config.vision_config
    vision_config.projection_dim = config.projection_dim
    text_config = config.text_config
    text_config.projection_dim = config.projection_dim
    towers = Towers(
        vision=lambda: tf.CLIPVisionModelWithProjection.from_pretrained(
            model, config=vision_config
        ),
        text=lambda: tf.CLIPTextModelWithProjection.from_pretrained(model, config=text_config),
        vision_config=kit["vision_config"],
        text_config=kit["text_config"],
        save_processor=lambda: _save_preprocessor(tf, model, vision_config, out),
        config=config,
        dim=int(config.projection_dim),
    )
    options = ExportOptions(model_id=model_id, text=text, opset=opset, atol=atol)
    return export_towers(kit, model, out, towers, options)


@dataclass(frozen=True)
class ExportOptions:
    """How an export runs: the name it records (None: the checkpoint's), whether the text
    tower is written, the ONNX opset (None: optimum's default) and the tolerance to torch."""

    model_id: str | None = None
    text: bool = True
    opset: int | None = None
    atol: float = 1e-4


@dataclass(frozen=True)
class Towers:
    """What one checkpoint's export writes: each tower's loader and ONNX config, how its
    image processor is saved, its config and embedding size; the text graph's fixed input
    shapes (none: dynamic), whether its tokenizer must have a fast form (``tokenizer.json``)
    and the family named in the log line."""

    vision: Callable[[], Any]
    text: Callable[[], Any]
    vision_config: type
    text_config: type
    save_processor: Callable[[], None]
    config: Any
    dim: int
    text_shapes: dict[str, int] = field(default_factory=dict)
    fast_tokenizer: bool = False
    family: str = ""


def export_towers(
    kit: dict[str, Any],
    model: str,
    out: Path,
    towers: Towers,
    options: ExportOptions,
) -> ExportReport:
    """Write ``vision.onnx`` (and ``text.onnx`` with the tokenizer, unless ``options`` say
    not), each checked against torch, then the image processor and ``config.json``."""
    model_id = options.model_id or default_model_id(model)
    opset, atol = options.opset, options.atol
    tf, convert = kit["transformers"], kit["convert"]
    with warnings.catch_warnings(), kit["torch"].no_grad():
        # torch's tracer and transformers warn about things that are fine for a fixed graph.
        warnings.simplefilter("ignore")
        vision = load(towers.vision, model, "cannot load the image tower")
        out.mkdir(parents=True, exist_ok=True)
        export_tower(
            convert, vision.eval(), towers.vision_config, out / VISION_FILE, opset, atol, {}
        )
        if options.text:
            tower = load(towers.text, model, "cannot load the text tower")
            tokenizer = load(lambda: tf.AutoTokenizer.from_pretrained(model), model, "no tokenizer")
            export_tower(
                convert,
                tower.eval(),
                towers.text_config,
                out / TEXT_FILE,
                opset,
                atol,
                towers.text_shapes,
            )
            tokenizer.save_pretrained(out, legacy_format=False)
            if towers.fast_tokenizer and not (out / "tokenizer.json").is_file():
                raise ExportError(f"{model}: the tokenizer has no fast (tokenizer.json) form")
        towers.save_processor()
    return _finish(towers, out, model_id)


def _finish(towers: Towers, out: Path, model_id: str) -> ExportReport:
    """Save ``config.json`` with the ``model_id`` key beside the graphs, and report them."""
    towers.config.save_pretrained(out)
    saved = read_json(out / "config.json")
    saved["model_id"] = model_id
    (out / "config.json").write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    log.info("exported %s%s (dim %d) to %s", towers.family, model_id, towers.dim, out)
    return ExportReport(model_id=model_id, out=out, dim=towers.dim, files=files)


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
