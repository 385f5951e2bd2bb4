"""The tag side of the backend's lifespan: load the vocabulary and tag vectors, run the
tagging job while the model reads words; stop it on shutdown.

``create_app`` lists ``tags_lifespan`` after ``embedding_lifespan``, so the model is
loaded (or known to be absent) when it starts.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pluggy
from litestar import Litestar

from rk.core.config import Settings
from rk.server.similarity import running, runtime_of
from rk.server.tags.runtime import load_tags
from rk.server.tags.worker import TagsWorker

log = logging.getLogger("rk.server")


@asynccontextmanager
async def tags_lifespan(app: Litestar) -> AsyncIterator[None]:
    """The vocabulary (a bad file stops the start), then the tagging job when it can run."""
    state = app.state
    settings: Settings = state.settings
    pm: pluggy.PluginManager = state.pm
    runtime = await load_tags(settings, runtime_of(state).embedder)
    state.tag_runtime = runtime
    if runtime.vectors is None:
        yield
        return
    worker = TagsWorker(
        runtime.vectors,
        poll_interval_s=settings.queues.poll_interval_s,
        batch=settings.tags.batch,
    )
    async with running(pm, worker):
        log.info("tags job: on (one backend process at a time)")
        yield
