"""rk plugin clip_embed: CLIP image/text embeddings on ONNX Runtime (CUDA when usable, else CPU).

Registration is cheap: onnxruntime, Pillow and numpy load only when the embedder is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rk.core import hookimpl

if TYPE_CHECKING:
    from rk.core.api.embedders import Embedder


@hookimpl
def rk_register_embedders() -> list[type[Embedder]]:
    """The ``clip`` embedder."""
    from rk.plugins.clip_embed.embedder import ClipEmbedder

    return [ClipEmbedder]
