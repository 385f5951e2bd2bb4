"""The backend's tag runtime: the vocabulary it checks names against, and its tag vectors.

The vocabulary is loaded at startup (the shipped file plus ``tags.vocabulary_extra``); a
bad file stops the backend with one line. The tag vectors need the model's text tower:
without one, tags are still shown, filtered and decided on, but nothing new is computed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import cache

from litestar.datastructures import State

from rk.core.api.embedders import Embedder
from rk.core.config import Settings
from rk.server.tags.scoring import TagVectors, tag_vectors
from rk.server.tags.vocabulary import Vocabulary, load_vocabulary

log = logging.getLogger("rk.server")


@cache
def shipped_vocabulary() -> Vocabulary:
    """The vocabulary shipped with rk, loaded once (an app built without the lifespan)."""
    return load_vocabulary()


@dataclass
class TagRuntime:
    """The vocabulary in force and, when the model reads words, its tag vectors."""

    vocabulary: Vocabulary
    vectors: TagVectors | None = None


def tags_of(state: State) -> TagRuntime:
    """The app's tag runtime (the shipped vocabulary when the app was built without it)."""
    runtime = getattr(state, "tag_runtime", None)
    return runtime if isinstance(runtime, TagRuntime) else TagRuntime(shipped_vocabulary())


async def load_tags(settings: Settings, embedder: Embedder | None) -> TagRuntime:
    """The vocabulary of ``settings`` and, when ``embedder`` has a text tower, the tag
    vectors (computed in a thread); BadVocabulary for a bad file."""
    vocabulary = load_vocabulary(settings.tags.vocabulary_extra)
    if embedder is None or not embedder.has_text:
        log.info("tags: %d in the vocabulary; no text tower, none computed", len(vocabulary.tags))
        return TagRuntime(vocabulary)
    vectors = await asyncio.to_thread(tag_vectors, embedder, vocabulary)
    log.info(
        "tags: %d in the vocabulary %s, computed with %s",
        len(vocabulary.tags),
        vocabulary.digest[:12],
        embedder.model_id,
    )
    return TagRuntime(vocabulary, vectors)
