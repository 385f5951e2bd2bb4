"""The embedder interface: image (and optionally text) batches to L2-normalised vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

import pluggy
from msgspec import Struct

from rk.core.registry import Registry


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


def embedder_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[Embedder]]:
    """Every registered embedder class, by ``name``."""
    from rk.core.plugins import get_plugin_manager, registry_of

    return registry_of(
        pm or get_plugin_manager(), "rk_register_embedders", "embedder", lambda cls: [cls.name]
    )


def get_embedder(name: str, pm: pluggy.PluginManager | None = None) -> type[Embedder]:
    """The embedder class called ``name``; UnknownPlugin lists the available ones."""
    return embedder_registry(pm).get(name)
