"""The files of a CLIP export directory, and what they say about the model.

A directory holds an image tower (``vision.onnx``), optionally a text tower
(``text.onnx`` with ``tokenizer.json``), ``preprocessor_config.json`` (CLIP's defaults when
absent) and config files naming the model. Nothing here touches ONNX Runtime.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rk.core.api.errors import RkError

VISION_NAMES = ("vision.onnx", "vision_model.onnx", "image.onnx")
TEXT_NAMES = ("text.onnx", "text_model.onnx")
CONFIG_NAMES = ("config.json", "rk_model.json")


class ModelDirError(RkError):
    """The model directory is missing, incomplete or has unreadable config files."""


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; ``{}`` when the file does not exist."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ModelDirError(f"{path}: not readable JSON ({exc})".splitlines()[0]) from None
    if not isinstance(data, dict):
        raise ModelDirError(f"{path}: expected a JSON object")
    return data


@dataclass(frozen=True)
class ModelFiles:
    """Where the parts of one export are."""

    root: Path
    vision: Path
    text: Path | None
    tokenizer: Path | None

    @classmethod
    def locate(cls, model: str | Path) -> ModelFiles:
        """Find the towers in ``model``; a missing directory or image tower is a ModelDirError."""
        if not str(model):
            raise ModelDirError(
                "no CLIP model configured (set vision.model to an export directory)"
            )
        root = Path(model).expanduser()
        if not root.is_dir():
            raise ModelDirError(f"{root}: model directory not found")
        vision = _first(root, VISION_NAMES)
        if vision is None:
            raise ModelDirError(
                f"{root}: no image tower (expected one of {', '.join(VISION_NAMES)})"
            )
        text = _first(root, TEXT_NAMES)
        tokenizer = root / "tokenizer.json"
        has_text = text is not None and tokenizer.is_file()
        return cls(
            root=root.resolve(),
            vision=vision,
            text=text if has_text else None,
            tokenizer=tokenizer if has_text else None,
        )

    def config(self) -> dict[str, Any]:
        """``config.json`` merged under ``rk_model.json`` (both optional)."""
        merged: dict[str, Any] = {}
        for name in CONFIG_NAMES:
            merged.update(read_json(self.root / name))
        return merged

    def model_id(self) -> str:
        """``model_id`` (or a relative ``_name_or_path``) in the config files, else dir name."""
        config = self.config()
        recorded = str(config.get("model_id") or config.get("_name_or_path") or "")
        if recorded and not Path(recorded).is_absolute():
            return recorded
        return self.root.name

    def preprocessor(self) -> dict[str, Any]:
        """The raw ``preprocessor_config.json`` (``{}`` when absent)."""
        return read_json(self.root / "preprocessor_config.json")

    def tokenizer_config(self) -> dict[str, Any]:
        """``tokenizer_config.json`` merged over ``special_tokens_map.json`` (both optional)."""
        merged = read_json(self.root / "special_tokens_map.json")
        merged.update(read_json(self.root / "tokenizer_config.json"))
        return merged


def _first(root: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (root / name).is_file():
            return root / name
    return None
