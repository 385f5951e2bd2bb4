"""The signed embedding API for embed workers: lease pending images, submit vectors.

Mounted under ``/admin/internal`` (HMAC guard, strict bodies). Both endpoints need the
backend's model (``vision.model``) to know which model id and width vectors belong to;
without one they answer 503.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter

from rk.core.api.storage import Storage
from rk.core.api.wire import EmbeddingSubmit, EmbeddingSubmitted, PendingEmbeddings
from rk.core.config import Settings
from rk.server.similarity.embed_runtime import EmbedRuntime
from rk.server.similarity.embeddings import MAX_PENDING, lease_pending, submit

KindParam = Annotated[
    str,
    Parameter(description="Image kind: runway or street", pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$"),
]
LimitParam = Annotated[
    int, Parameter(description="How many images to lease (0 only counts)", ge=0, le=MAX_PENDING)
]


def runtime_of(state: State) -> EmbedRuntime:
    """The app's embedding runtime (an empty one when the app was built without it)."""
    runtime = getattr(state, "embed_runtime", None)
    return runtime if isinstance(runtime, EmbedRuntime) else EmbedRuntime()


class EmbeddingsController(Controller):
    """Pending images out, vectors and failures in."""

    path = "/embeddings"
    tags = ("internal",)

    @get("/pending", summary="Lease images that still need a vector")
    async def pending(
        self,
        kind: KindParam,
        state: State,
        storage: NamedDependency[Storage],
        settings: NamedDependency[Settings],
        limit: LimitParam = 100,
    ) -> PendingEmbeddings:
        """Up to ``limit`` images of ``kind`` with download URLs, leased for a short while."""
        model = runtime_of(state).model
        return await lease_pending(
            kind,
            limit,
            model.model_id,
            storage,
            failure_cap=settings.embed.failure_cap,
            lease_s=settings.embed.pending_lease_s,
            url_ttl_s=settings.media.upload_url_ttl_s,
        )

    @post("/", status_code=200, summary="Save vectors and record failures")
    async def save(
        self, data: JSONBody[EmbeddingSubmit], state: State, settings: NamedDependency[Settings]
    ) -> EmbeddingSubmitted:
        """Store good vectors, count failures per image, list every rejected item."""
        model = runtime_of(state).model
        return await submit(data, model, state.pm, failure_cap=settings.embed.failure_cap)
