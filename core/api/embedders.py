"""The embedder interface: image (and optionally text) batches to L2-normalised vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

from msgspec import Struct


class EmbedResult(Struct, frozen=True, kw_only=True):
    """Vectors for the decodable inputs: ``vectors[i]`` belongs to input ``indexes[i]``."""

    dim: int
    vectors: list[list[float]]
    indexes: list[int]
    skipped: list[int]


@runtime_checkable
class Embedder(Protocol):
    """A visual model. ``model_id`` and ``dim`` come from the loaded model, not constants."""

    name: ClassVar[str]
    model_id: str
    dim: int
    provider: str
    has_text: bool

    def __init__(self, options: Mapping[str, Any]) -> None: ...

    def embed_images(self, images: list[bytes]) -> EmbedResult:
        """Embed a batch; undecodable inputs are listed in ``skipped``, never raised."""
        ...

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        """Embed texts; raises NoTextTower when the model has none."""
        ...
