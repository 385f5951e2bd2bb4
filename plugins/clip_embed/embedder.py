"""ClipEmbedder: a CLIP export directory on ONNX Runtime (CUDA when usable, else CPU).

Images are decoded and preprocessed in a thread pool one batch ahead of the model: while
the session runs batch k (onnxruntime releases the GIL), the pool prepares batch k+1, so
the model does not sit idle waiting on Pillow.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ClassVar

import msgspec
import numpy as np

from rk.core.api.embedders import EmbedResult
from rk.core.api.errors import ConfigError, NoTextTower
from rk.core.config import VisionSettings
from rk.plugins.clip_embed.model_dir import ModelDirError, ModelFiles
from rk.plugins.clip_embed.preprocess import Preprocessor
from rk.plugins.clip_embed.providers import new_session
from rk.plugins.clip_embed.text import TextTower

log = logging.getLogger("rk.plugins.clip_embed")


def l2_normalise(rows: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (an all-zero row stays zero)."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


def vision_settings(options: Mapping[str, Any]) -> VisionSettings:
    """``options`` (the ``vision`` settings as a mapping) checked against VisionSettings."""
    try:
        return msgspec.convert(dict(options), VisionSettings, strict=False)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"vision settings: {exc}") from None


class ClipEmbedder:
    """CLIP image (and optionally text) embeddings from an ONNX export directory."""

    name: ClassVar[str] = "clip"

    def __init__(self, options: Mapping[str, Any]) -> None:
        settings = vision_settings(options)
        if settings.batch < 1 or settings.concurrency < 1:
            raise ConfigError("vision.batch and vision.concurrency must be at least 1")
        self.files = ModelFiles.locate(settings.model)
        self.model_id = self.files.model_id()
        self.batch = settings.batch
        self.session, self.requested_providers = new_session(
            str(self.files.vision), settings.providers
        )
        self.provider: str = self.session.get_providers()[0]
        pixel_input = self.session.get_inputs()[0]
        self.input_name: str = pixel_input.name
        self.output_name = self._image_output()
        height, width = pixel_input.shape[2:4] if len(pixel_input.shape) == 4 else (None, None)
        static = (height, width) if isinstance(height, int) and isinstance(width, int) else None
        self.preprocess = Preprocessor.from_config(
            self.files.preprocessor(), static[0] if static else self._config_image_size()
        )
        if static and static != self.preprocess.crop:
            crop_h, crop_w = self.preprocess.crop
            raise ModelDirError(
                f"{self.files.root}: the image tower takes {static[0]}x{static[1]} but "
                f"preprocessor_config.json crops to {crop_h}x{crop_w}"
            )
        self.dim = self._image_dim()
        self._pool = ThreadPoolExecutor(settings.concurrency, thread_name_prefix="clip-preprocess")
        self._text = TextTower(self.files, settings.providers) if self.files.text else None
        self.has_text = self._text is not None
        if self._text is not None and self._text.dim != self.dim:
            raise ModelDirError(
                f"{self.files.root}: text tower dim {self._text.dim} != image tower dim {self.dim}"
            )
        log.info(
            "clip model %s: dim %d, text tower %s, provider %s",
            self.model_id,
            self.dim,
            "yes" if self.has_text else "no",
            self.provider,
        )

    def _image_output(self) -> str:
        """``image_embeds`` when the graph names it, else its only 2-D output."""
        outputs = self.session.get_outputs()
        names = [item.name for item in outputs]
        if "image_embeds" in names:
            return "image_embeds"
        flat = [item.name for item in outputs if len(item.shape) == 2]
        if len(flat) != 1:
            raise ModelDirError(
                f"{self.files.vision}: cannot tell which output is the image embedding "
                f"({', '.join(names)}); export it with `rk embed export`"
            )
        return flat[0]

    def _config_image_size(self) -> int | None:
        vision = self.files.config().get("vision_config") or {}
        size = vision.get("image_size")
        return size if isinstance(size, int) else None

    def _image_dim(self) -> int:
        """The embedding width: from the graph's output shape, else by running one image."""
        for item in self.session.get_outputs():
            if item.name == self.output_name and isinstance(item.shape[-1], int):
                return int(item.shape[-1])
        probe = np.zeros((1, 3, *self.preprocess.crop), dtype=np.float32)
        (out,) = self.session.run([self.output_name], {self.input_name: probe})
        return int(out.shape[-1])

    def _submit(self, images: list[bytes], start: int) -> list[Future[np.ndarray | None]]:
        """Queue the preprocessing of the batch starting at ``start``."""
        chunk = images[start : start + self.batch]
        return [self._pool.submit(self.preprocess, data) for data in chunk]

    def embed_array(self, images: list[bytes]) -> tuple[np.ndarray, list[int], list[int]]:
        """Embed a list of image bytes: (unit vectors as float32 rows, their indexes, skipped)."""
        rows: list[np.ndarray] = []
        indexes: list[int] = []
        skipped: list[int] = []
        ahead = self._submit(images, 0)
        for start in range(0, len(images), self.batch):
            current, ahead = ahead, self._submit(images, start + self.batch)
            arrays: list[np.ndarray] = []
            for offset, future in enumerate(current):
                array = future.result()
                if array is None:
                    skipped.append(start + offset)
                else:
                    arrays.append(array)
                    indexes.append(start + offset)
            if arrays:
                feed = {self.input_name: np.stack(arrays)}
                (out,) = self.session.run([self.output_name], feed)
                rows.append(l2_normalise(np.asarray(out, dtype=np.float32)))
        matrix = np.concatenate(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)
        return matrix, indexes, skipped

    def embed_images(self, images: list[bytes]) -> EmbedResult:
        """Embed a batch; undecodable inputs are listed in ``skipped``, never raised."""
        matrix, indexes, skipped = self.embed_array(images)
        return EmbedResult(dim=self.dim, vectors=matrix.tolist(), indexes=indexes, skipped=skipped)

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        """Unit text embeddings, in ``vision.batch`` sized runs; NoTextTower without one."""
        if self._text is None:
            raise NoTextTower(
                f"model {self.model_id} has no text tower (text.onnx + tokenizer.json in "
                f"{self.files.root})"
            )
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch):
            out.extend(l2_normalise(self._text.embed(texts[start : start + self.batch])).tolist())
        return out

    def close(self) -> None:
        """Stop the preprocessing threads."""
        self._pool.shutdown(wait=True, cancel_futures=True)
