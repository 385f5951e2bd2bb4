"""``rk spider``: the crawl side — ``serve`` (task queue), one-shot crawls per source."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.common import ConfigOption, fail, settings_from
from rk.cli.spider_oneshot import add_oneshot_commands, quiet_http_logs
from rk.cli.worker_run import MetricsHostOption, MetricsPortOption, run_worker
from rk.core.api.errors import RkError
from rk.core.api.lookups import get_source
from rk.core.api.sources import Source
from rk.core.config import Settings

if TYPE_CHECKING:
    import httpx

    from rk.core.runtime.client import BackendClient
    from rk.core.runtime.media_upload import MediaUploader

spider_app = typer.Typer(
    help="Crawl sources: serve the task queue or crawl once.", no_args_is_help=True
)
log = logging.getLogger("rk.spider")


@spider_app.command("serve")
def serve(
    plugin: Annotated[str, typer.Option("--plugin", "-p", help="Source plugin to crawl with.")],
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, max=64, help="Brands crawled at once.")
    ] = 4,
    interval: Annotated[
        float, typer.Option("--interval", "-i", help="Poll interval (s) when the queue is empty.")
    ] = 5,
    max_co: Annotated[
        int,
        typer.Option("--max-co", "-m", min=1, max=64, help="Concurrent requests inside one brand."),
    ] = 5,
    config: ConfigOption = None,
    metrics_port: MetricsPortOption = None,
    metrics_host: MetricsHostOption = "127.0.0.1",
) -> None:
    """Claim crawl tasks from the backend, crawl them and report the results."""
    if interval < 1:
        fail(f"--interval {interval:g} is too short: the poll interval must be at least 1 s")
    settings = settings_from(config)
    quiet_http_logs()
    try:
        source_cls = get_source(plugin)
        from rk.core.runtime.client import require_ingest

        require_ingest(settings)
    except RkError as exc:
        fail(str(exc))
    run_worker(
        lambda: _serve(settings, source_cls, workers, interval, max_co), metrics_port, metrics_host
    )


async def _serve(
    settings: Settings, source_cls: type[Source], workers: int, interval: float, max_co: int
) -> int:
    from rk.core.runtime.client import BackendClient, BackendError
    from rk.core.runtime.host_budget import fleet_budget
    from rk.core.runtime.http import polite_client
    from rk.core.runtime.spider_serve import SpiderServer, heartbeat_every

    async with (
        BackendClient.from_settings(settings) as client,
        polite_client(settings.spider, budget=fleet_budget(settings.spider, client)) as http,
    ):
        server = SpiderServer(
            client,
            http,
            source_cls,
            settings.source_options(source_cls.name),
            workers=workers,
            interval_s=interval,
            max_concurrency=max_co,
            uploader=_uploader(settings, client, http),
            heartbeat_s=heartbeat_every(settings.queues.crawl_lease_s),
            robots=http.robots,
            show_retry_s=settings.spider.show_retry_s,
        )
        runner = asyncio.create_task(server.run())
        server.install_signals(asyncio.get_running_loop(), runner.cancel)
        log.info("[serve] %d workers on %s, polling every %gs", workers, source_cls.name, interval)
        try:
            await runner
        except BackendError as exc:
            typer.echo(f"error: {exc}", err=True)
            return 2
        except asyncio.CancelledError:
            return 130
    return 0


def _uploader(
    settings: Settings, client: BackendClient, http: httpx.AsyncClient
) -> MediaUploader | None:
    """The direct media uploader when ``media.upload`` is on, else None (URLs only)."""
    if not settings.media.upload:
        return None
    from rk.core.runtime.media_upload import MediaUploader

    return MediaUploader(client, http, settings)


def register(app: typer.Typer) -> None:
    """Add ``rk spider`` (serve and one command per registered source) to the root app."""
    add_oneshot_commands(spider_app)
    app.add_typer(spider_app, name="spider")
