"""The whole rk plugin API: every hook a plugin may implement.

Registration hooks are cheap and synchronous: they return classes, open nothing and load
no weights. Event hooks are dispatched through ``rk.core.api.plugins.notify`` so a failing
plugin is logged and never breaks the pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from rk.core.api.embedders import Embedder
    from rk.core.api.queues import QueueBackend
    from rk.core.api.sources import Source
    from rk.core.api.storage import Storage
    from rk.core.api.vector_indexes import VectorIndex
    from rk.core.api.wire import ShowIngest

hookspec = pluggy.HookspecMarker("rk")
hookimpl = pluggy.HookimplMarker("rk")


# ---------------------------------------------------------------- Sources


@hookspec
def rk_register_sources() -> list[type[Source]]:
    """Register site sources (Vogue Runway, The Impression, …).

    When: once per process that crawls (spider serve, one-shot spider), on first lookup.
    Returns: a list of Source classes, each with a unique ``name`` ClassVar.
    Results: all collected; a duplicate ``name`` raises PluginConflict.
    Example::

        @hookimpl
        def rk_register_sources():
            return [MySiteSource]
    """


# ---------------------------------------------------------------- Storage


@hookspec
def rk_register_storages() -> list[type[Storage]]:
    """Register object stores keyed by URL scheme (``s3``, ``file``, ``memory``, …).

    When: once per backend process, when the ``storage`` setting is resolved.
    Returns: a list of Storage classes, each with a ``schemes`` ClassVar tuple.
    Results: all collected; two classes claiming one scheme raise PluginConflict.
    Example::

        @hookimpl
        def rk_register_storages():
            return [GcsStore]  # schemes = ("gs",)
    """


# ---------------------------------------------------------------- Embedders


@hookspec
def rk_register_embedders() -> list[type[Embedder]]:
    """Register visual embedding models by name.

    When: once per process that embeds (embed worker, vision service, backend search).
    Returns: a list of Embedder classes, each with a unique ``name`` ClassVar.
    Results: all collected; a duplicate ``name`` raises PluginConflict.
    Example::

        @hookimpl
        def rk_register_embedders():
            return [SiglipEmbedder]
    """


# ---------------------------------------------------------------- Queues


@hookspec
def rk_register_queues() -> list[type[QueueBackend]]:
    """Register ingest-job queue backends keyed by database scheme (``postgresql``, ``sqlite``).

    The contract is narrower than "any database": rk's tables, migrations and crawl-task
    store run on SQLite and PostgreSQL only, and the crawl-task store is not pluggable.
    A queue backend is therefore another implementation of ``QueueBackend`` (the
    ``ingest_jobs`` SQL) for one of those two schemes. The built-in ``queues`` plugin
    registers both; a plugin registering one of them too is a PluginConflict, so load it
    with ``RK_LOAD_PLUGINS`` naming the plugins to use and leaving ``queues`` out.

    When: once per backend process, when the ``database`` setting is resolved.
    Returns: a list of QueueBackend classes, each with a ``schemes`` ClassVar tuple.
    Results: all collected; two backends claiming one scheme raise PluginConflict.
    Example::

        @hookimpl
        def rk_register_queues():
            return [AdvisoryLockQueue]  # schemes = ("postgresql",)
    """


# ---------------------------------------------------------------- Vector indexes


@hookspec
def rk_register_vector_indexes() -> list[type[VectorIndex]]:
    """Register vector indexes by name (``pgvector``, ``exact``, …).

    When: once per backend process (and ``rk vectors``), when ``vectors.index`` is resolved.
    Returns: a list of VectorIndex classes, each with a unique ``name`` ClassVar and the
    database ``schemes`` it can serve.
    Results: all collected; a duplicate ``name`` raises PluginConflict.
    Example::

        @hookimpl
        def rk_register_vector_indexes():
            return [QdrantIndex]  # name = "qdrant", schemes = ("postgresql", "sqlite")
    """


# ---------------------------------------------------------------- Events


@hookspec
def rk_show_ingested(show: ShowIngest, article_id: int, outcome: str) -> None:
    """A show's ingest job finished.

    When: in the backend's ingest worker, once per done job with a show payload.
    Returns: None.
    Results: event: errors are logged and never stop the pipeline.
    Example::

        @hookimpl
        def rk_show_ingested(show, article_id, outcome):
            log.info("%s -> article %s (%s)", show.show_key, article_id, outcome)
    """


@hookspec
def rk_article_status_changed(article_id: int, old: str, new: str) -> None:
    """A moderator (or the ingest worker) changed an article's status.

    When: in the backend, after the change is committed.
    Returns: None.
    Results: event: errors are logged and never stop the pipeline.
    Example::

        @hookimpl
        def rk_article_status_changed(article_id, old, new):
            if new == "published":
                purge_cdn(article_id)
    """


@hookspec
def rk_media_withdrawn(article_id: int, keys: list[str], urls: list[str]) -> None:
    """Media of a published article stopped being public: purge them from your CDN.

    When: in the backend (or ``rk articles``), after a published article was rejected or
    deleted and the change committed. ``keys`` are its media keys (originals and
    thumbnails) that no other published article still uses, so ``/media`` answers 404 for
    them from now on; ``urls`` are the public URLs pages handed out for them
    (``{server.public_url}/media/<key>``), in the same order. Not called when no key was
    withdrawn (each one is still used by another published article).
    Returns: None.
    Results: event: errors are logged and never stop the pipeline.
    Example::

        @hookimpl
        def rk_media_withdrawn(article_id, keys, urls):
            cdn.purge(urls)
    """


@hookspec
def rk_embeddings_saved(kind: str, image_ids: list[int], model: str) -> None:
    """Vectors were stored for some images.

    When: in the backend, after ``POST embeddings`` (or inline embedding) commits.
    Returns: None.
    Results: event: errors are logged and never stop the pipeline.
    Example::

        @hookimpl
        def rk_embeddings_saved(kind, image_ids, model):
            metrics.inc("embedded", len(image_ids))
    """
