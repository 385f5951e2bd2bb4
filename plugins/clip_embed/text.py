"""The optional text tower: ``tokenizer.json`` + ``text.onnx`` → projected text embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rk.plugins.clip_embed.model_dir import ModelDirError, ModelFiles
from rk.plugins.clip_embed.providers import new_session

DEFAULT_MAX_LENGTH = 77
ENDOFTEXT = "<|endoftext|>"


class TextTower:
    """Tokenise (pad/truncate to the model's length) and run the text graph."""

    def __init__(self, files: ModelFiles, providers: Sequence[str]) -> None:
        from tokenizers import Tokenizer

        if files.text is None or files.tokenizer is None:
            raise ModelDirError(f"{files.root}: no text tower (text.onnx and tokenizer.json)")
        self.session, _ = new_session(str(files.text), providers)
        inputs = {item.name: item for item in self.session.get_inputs()}
        ids = inputs.get("input_ids") or next(iter(inputs.values()))
        self.ids_name: str = ids.name
        self.mask_name = "attention_mask" if "attention_mask" in inputs else None
        self.int_type = np.int32 if ids.type == "tensor(int32)" else np.int64
        outputs = [item.name for item in self.session.get_outputs()]
        self.output: str = "text_embeds" if "text_embeds" in outputs else outputs[0]
        static = ids.shape[1] if len(ids.shape) > 1 else None
        self.max_length = static if isinstance(static, int) else _max_length(files)
        self.tokenizer = Tokenizer.from_file(str(files.tokenizer))
        self.tokenizer.enable_truncation(self.max_length)
        pad_token = _pad_token(files.tokenizer_config())
        pad_id = self.tokenizer.token_to_id(pad_token)
        self.tokenizer.enable_padding(
            pad_id=pad_id if pad_id is not None else 0,
            pad_token=pad_token,
            length=static if isinstance(static, int) else None,
        )
        self.dim = int(self.embed(["a photo"])[0].shape[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        """Raw (not yet normalised) embeddings, one row per text."""
        encodings = self.tokenizer.encode_batch(texts)
        feeds: dict[str, Any] = {
            self.ids_name: np.asarray([e.ids for e in encodings], dtype=self.int_type)
        }
        if self.mask_name is not None:
            mask = [e.attention_mask for e in encodings]
            feeds[self.mask_name] = np.asarray(mask, dtype=self.int_type)
        (out,) = self.session.run([self.output], feeds)
        return np.asarray(out, dtype=np.float32)


def _max_length(files: ModelFiles) -> int:
    """The tokenizer's ``model_max_length``, else the text config's positions, else 77."""
    declared = files.tokenizer_config().get("model_max_length")
    if isinstance(declared, int) and 0 < declared < 100_000:
        return declared
    text_config = files.config().get("text_config") or {}
    positions = text_config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        return positions
    return DEFAULT_MAX_LENGTH


def _pad_token(config: dict[str, Any]) -> str:
    """The pad token named by the tokenizer config (CLIP pads with its end-of-text token)."""
    pad = config.get("pad_token") or ENDOFTEXT
    if isinstance(pad, dict):
        pad = pad.get("content") or ENDOFTEXT
    if not isinstance(pad, str):
        raise ModelDirError("tokenizer_config.json: pad_token is not a string")
    return pad
