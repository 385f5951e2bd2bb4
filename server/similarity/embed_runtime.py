"""The backend's own copy of the embedding model: what vectors are checked against, and the
towers that text and image search run.

The backend loads the model named by ``vision.model`` (through the embedder plugin named
by ``vision.embedder``) once, at startup, in a thread. Without one, the embedding API and
search answer 503 with a one-line reason instead of guessing a model id.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import msgspec
import pluggy

from rk.core.api.embedders import Embedder
from rk.core.api.lookups import get_embedder
from rk.core.config import Settings
from rk.server.platform.http.errors import Unavailable
from rk.server.similarity.embeddings import ModelInfo

log = logging.getLogger(__name__)


@dataclass
class EmbedRuntime:
    """The loaded embedder (None when ``vision.model`` is not set)."""

    embedder: Embedder | None = None

    @property
    def model(self) -> ModelInfo:
        """The active model's id and dim; Unavailable (503) when none is loaded."""
        return ModelInfo(model_id=self.require().model_id, dim=self.require().dim)

    def require(self) -> Embedder:
        """The embedder; Unavailable (503) when the backend has none."""
        if self.embedder is None:
            raise Unavailable(
                "this backend has no embedding model: set vision.model to a CLIP export "
                "directory and restart it"
            )
        return self.embedder

    def close(self) -> None:
        """Release the model's threads, when the embedder has any."""
        close = getattr(self.embedder, "close", None)
        if callable(close):
            close()


async def load_runtime(settings: Settings, pm: pluggy.PluginManager) -> EmbedRuntime:
    """Load ``vision.model`` with the ``vision.embedder`` plugin (in a thread), if set."""
    if not settings.vision.model:
        log.info("embedding model: none (vision.model not set; embeddings and search are off)")
        return EmbedRuntime()
    factory = get_embedder(settings.vision.embedder, pm)
    options = msgspec.to_builtins(settings.vision)
    embedder = await asyncio.to_thread(factory, options)
    log.info(
        "embedding model: %s (dim %d, text tower %s, %s)",
        embedder.model_id,
        embedder.dim,
        "yes" if embedder.has_text else "no",
        embedder.provider,
    )
    return EmbedRuntime(embedder)
