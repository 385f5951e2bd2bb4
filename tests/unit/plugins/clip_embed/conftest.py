"""Fixtures for the clip_embed tests: the committed tiny CLIP loaded on the CPU provider."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rk.plugins.clip_embed.embedder import ClipEmbedder
from tests.models.samples import TINY_CLIP


@pytest.fixture
def make_embedder() -> Iterator[Callable[..., ClipEmbedder]]:
    """Build ClipEmbedders (tiny model, CPU provider unless told); all closed afterwards."""
    built: list[ClipEmbedder] = []

    def make(model: Path = TINY_CLIP, **options: Any) -> ClipEmbedder:
        options.setdefault("providers", ["cpu"])
        embedder = ClipEmbedder({"model": str(model), **options})
        built.append(embedder)
        return embedder

    yield make
    for embedder in built:
        embedder.close()


@pytest.fixture
def embedder(make_embedder: Callable[..., ClipEmbedder]) -> ClipEmbedder:
    """The tiny CLIP with default settings."""
    return make_embedder()
