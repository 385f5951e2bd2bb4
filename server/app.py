"""The backend application factory: ``create_app(settings, pm) -> Litestar``.

The lifespan brings the backend up in order (database + migrations, storage, queue,
ingest workers) and logs one line per component; on shutdown it stops the workers first
(jobs in flight are finished or released) and closes the rest in reverse order.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from urllib.parse import urlsplit

import pluggy
from litestar import Litestar
from litestar.datastructures import State

from rk import __version__
from rk.core.api.lookups import open_storage
from rk.core.api.plugins import get_plugin_manager
from rk.core.api.storage import StorageContext
from rk.core.config import Settings
from rk.core.redact import remember_secret
from rk.server.brands import BrandIds
from rk.server.console import session_check
from rk.server.crawl import CrawlTasks
from rk.server.deps import dependencies
from rk.server.ingest import (
    Fetcher,
    FetchPolicy,
    IngestService,
    IngestWorkers,
    ShowIntake,
    allow_list,
    source_kinds,
)
from rk.server.media import KIND as MEDIA_CLEANUP
from rk.server.media import MediaCleanupService, StorageSweeper, console_storage, public_storage
from rk.server.platform.db.database import default_pool_size
from rk.server.platform.db.engine import close, connect, redact_dsn
from rk.server.platform.db.migrate import migrate_database
from rk.server.platform.http.capacity import refuse_over_capacity
from rk.server.platform.http.compression import CONFIG as COMPRESSION
from rk.server.platform.http.control_paths import refuse_control_paths
from rk.server.platform.http.errors import exception_handlers
from rk.server.platform.http.openapi_doc import complete_openapi
from rk.server.platform.http.outage import OutageLog, pool_retries_folded
from rk.server.platform.http.request_context import HttpMetrics, request_context
from rk.server.platform.http.security_headers import SecurityHeaders
from rk.server.platform.http.slow_clients import body_deadline
from rk.server.platform.jobs.engine import JobQueue, wall_clock
from rk.server.platform.ops.ops_access import OpsAccess
from rk.server.platform.signing.replay_guard import ReplayGuard
from rk.server.platform.signing.secrets import resolve_secrets
from rk.server.platform.web.templating import template_config
from rk.server.routes import all_routes
from rk.server.similarity import PhotoGate, embedding_lifespan
from rk.server.site import openapi_config
from rk.server.tags import tags_lifespan

log = logging.getLogger("rk.server")
PROBE_KEY = f"runway/{'0' * 40}.jpg"
"""A media key whose URL shows where the storage serves images from (``img-src``)."""


def backend_url(settings: Settings) -> str:
    """Where this backend is reachable: ``server.public_url``, else its listen address."""
    if settings.server.public_url:
        return settings.server.public_url.rstrip("/")
    return f"http://{settings.server.host}:{settings.server.port}"


def storage_label(url: str) -> str:
    """The storage URL without its query (which may carry credentials)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def fetch_policy(settings: Settings) -> FetchPolicy:
    """The downloader's limits from the settings."""
    return FetchPolicy(
        max_bytes=settings.media.max_image_bytes,
        timeout_s=settings.spider.timeout_s,
        allow_private_hosts=allow_list(settings.security.allow_private_hosts),
        user_agent=settings.spider.effective_user_agent,
    )


def freeze_startup_heap(stack: AsyncExitStack) -> None:
    """Keep what startup built (~90k objects: app, routes, plugins) out of GC passes until exit.

    Every full collection walked all of it while serving: on the signed ingest POST load
    of bench/ingest_api.py, freezing cut p99 latency from 64-71 ms to 21-36 ms and raised
    req/s by 6-33 %. Unfrozen again at shutdown, so an app stopped inside a longer-lived
    process (tests) can still be collected.
    """
    gc.freeze()
    stack.callback(gc.unfreeze)


@asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    """Start the database, storage, queue and ingest workers; stop them in reverse."""
    state = app.state
    settings: Settings = state.settings
    pm: pluggy.PluginManager = state.pm
    dsn = settings.database_url
    async with AsyncExitStack() as stack:
        stack.enter_context(pool_retries_folded(state.outages))
        pool_size = settings.server.db_pool_size or default_pool_size(settings.server.workers)
        db = await connect(dsn, pool_size=pool_size, readers=settings.server.db_readers)
        stack.push_async_callback(close, db)
        state.db = db
        applied = await migrate_database(db)
        done = f"{len(applied)} migrations applied" if applied else "schema up to date"
        log.info("database: %s (%s; %s)", redact_dsn(dsn), done, db.describe())
        context = StorageContext(backend_url=backend_url(settings), secret=state.secrets.media)
        state.storage = open_storage(settings.storage_url, context, pm)
        state.public_storage = public_storage(state.storage, state.backend_url)
        state.console_storage = console_storage(state.storage)
        log.info("storage: %s", storage_label(settings.storage_url))
        state.security_headers.allow_images_from(await state.storage.url_for(PROBE_KEY, 60))
        state.queue = JobQueue.on(db, settings.queues, pm, prefetch=settings.server.workers)
        stack.push_async_callback(state.queue.close)
        state.intake = ShowIntake(state.queue, state.brand_ids, source_kinds(pm))
        state.crawl_tasks = CrawlTasks.on(db, settings.queues)
        stack.push_async_callback(state.crawl_tasks.close)
        fetcher = Fetcher(fetch_policy(settings))
        stack.push_async_callback(fetcher.close)
        ingest = IngestService(state.storage, fetcher, settings, pm)
        cleanup = MediaCleanupService(state.storage)
        workers = IngestWorkers(
            state.queue,
            {"crawl": ingest.run, MEDIA_CLEANUP: cleanup.run},
            pm,
            count=settings.server.workers,
            poll_interval_s=settings.queues.poll_interval_s,
            grace_s=settings.server.shutdown_grace_s,
        )
        woken = workers.count > 0 and await state.queue.watch()
        workers.start()
        stack.push_async_callback(workers.stop)
        log.info(
            "ingest workers: %d (poll every %g s%s)",
            workers.count,
            workers.poll_interval_s,
            ", woken by new jobs" if woken else "",
        )
        sweeper = StorageSweeper(
            state.storage,
            interval_s=settings.media.gc_interval_s,
            grace_s=settings.media.gc_grace_s,
        )
        sweeper.start()
        stack.push_async_callback(sweeper.stop)
        freeze_startup_heap(stack)
        yield
        log.info("shutting down: stopping ingest workers")


def create_app(settings: Settings, pm: pluggy.PluginManager | None = None) -> Litestar:
    """The backend app for ``settings``; nothing is opened until the lifespan starts."""
    state = State(
        {
            "settings": settings,
            "backend_url": backend_url(settings),
            "pm": pm or get_plugin_manager(),
            "secrets": resolve_secrets(settings),
            "brand_ids": BrandIds(),
            "http_metrics": HttpMetrics(),
            "replay_guard": ReplayGuard(),
            "outages": OutageLog(),
            "photo_gate": PhotoGate(
                settings.search.photo_concurrency, settings.search.photo_uploads_per_minute
            ),
            "security_headers": SecurityHeaders(settings),
            "ops_access": OpsAccess(settings.server),
            "clock": wall_clock,
            "session_check": session_check(settings),
        }
    )
    remember_secret(state.secrets.ingest)
    remember_secret(state.secrets.media)
    remember_secret(settings.server.ops_token)
    app = Litestar(
        route_handlers=all_routes(settings, state.secrets.media),
        dependencies=dependencies(),
        exception_handlers=exception_handlers(),
        middleware=[request_context, body_deadline],
        before_send=[state.security_headers],
        lifespan=[lifespan, embedding_lifespan, tags_lifespan],
        state=state,
        template_config=template_config(),
        compression_config=COMPRESSION,
        openapi_config=openapi_config("rk backend", __version__),
        logging_config=None,
    )
    complete_openapi(app)
    app.asgi_handler = refuse_over_capacity(refuse_control_paths(app.asgi_handler))
    return app
