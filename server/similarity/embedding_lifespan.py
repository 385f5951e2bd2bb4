"""The embedding side of the backend's lifespan: open the vector index, load the model, run
the neighbours loop and (with ``embed.inline``) the inline embedder; stop them in reverse.

``create_app`` lists ``embedding_lifespan`` after the main lifespan, so the database and
storage are up when it starts.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pluggy
from litestar import Litestar

from rk.core.config import Settings
from rk.server.similarity.embed_runtime import load_runtime
from rk.server.similarity.inline_embed import InlineEmbedder
from rk.server.similarity.neighbours_job import NeighboursWorker, VectorsWorker
from rk.server.similarity.vectors.choose import open_vector_index

log = logging.getLogger("rk.server")


def _plugged(stack: AsyncExitStack, pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Register ``plugin`` for events until the stack closes."""
    pm.register(plugin, name=name)
    stack.callback(pm.unregister, plugin)


@asynccontextmanager
async def running(pm: pluggy.PluginManager, worker: VectorsWorker) -> AsyncIterator[None]:
    """``worker`` registered for events and looping until the block ends."""
    pm.register(worker, name=f"rk-{worker.name}-{id(worker)}")
    try:
        worker.start()
        yield
    finally:
        await worker.stop()
        pm.unregister(worker)


@asynccontextmanager
async def embedding_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Vector index, model, neighbours worker, inline embedder: up in order, down in reverse."""
    state = app.state
    settings: Settings = state.settings
    pm: pluggy.PluginManager = state.pm
    async with AsyncExitStack() as stack:
        index = await open_vector_index(settings.vectors, pm)
        stack.push_async_callback(index.close)
        state.vector_index = index
        runtime = await load_runtime(settings, pm)
        stack.callback(runtime.close)
        state.embed_runtime = runtime
        embedder = runtime.embedder
        if embedder is None:
            yield
            return
        worker = NeighboursWorker(
            embedder.model_id,
            k=settings.embed.neighbours_k,
            poll_interval_s=settings.queues.poll_interval_s,
            index=index,
        )
        await stack.enter_async_context(running(pm, worker))
        log.info("neighbours job: k=%d (one backend process at a time)", worker.job.k)
        if settings.embed.inline:
            inline = InlineEmbedder(
                embedder,
                state.storage,
                pm,
                failure_cap=settings.embed.failure_cap,
                batch=settings.vision.batch,
            )
            _plugged(stack, pm, inline, f"rk-inline-embed-{id(inline)}")
            inline.start()
            stack.push_async_callback(inline.stop)
            log.info("inline embedding: on (model %s)", embedder.model_id)
        yield
