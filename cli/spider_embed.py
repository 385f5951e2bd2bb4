"""``rk spider embed``: backfill embeddings from a GPU machine (``rk.core.runtime.embed_worker``).

One line per round on stdout (``fetched 100 → saved 97, failed 3 (remaining 1,204)``),
a progress bar on an interactive terminal. With ``--loop`` it keeps going, sleeping
``--interval`` seconds when nothing is pending. The first Ctrl+C finishes the round in
hand and stops; a second one aborts (the leased images return to the queue when their
lease runs out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.common import ConfigOption, fail, settings_from
from rk.cli.spider_oneshot import quiet_http_logs
from rk.cli.worker_run import MetricsHostOption, MetricsPortOption, run_worker
from rk.core.api.errors import RkError
from rk.core.config import Settings

if TYPE_CHECKING:
    from rich.progress import TaskID

    from rk.core.api.embedders import Embedder
    from rk.core.runtime.embed_worker import Encoder

log = logging.getLogger("rk.spider.embed")
KIND = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


def embed(
    kind: Annotated[str, typer.Option("--kind", "-k", help="Image kind: runway or street.")],
    limit: Annotated[
        int, typer.Option("--limit", "-l", min=1, max=1000, help="Images leased per round.")
    ] = 100,
    batch: Annotated[
        int | None,
        typer.Option(
            "--batch", "-b", min=1, max=1024, help="Images per model call (vision.batch)."
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", min=1, max=256, help="Concurrent downloads (vision.concurrency)."
        ),
    ] = None,
    loop: Annotated[bool, typer.Option("--loop", help="Keep going round after round.")] = False,
    interval: Annotated[
        float,
        typer.Option("--interval", "-i", help="With --loop: wait (s) when nothing is pending."),
    ] = 10,
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint", help="Vision service URL (default vision.endpoint; empty: in process)."
        ),
    ] = None,
    config: ConfigOption = None,
    metrics_port: MetricsPortOption = None,
    metrics_host: MetricsHostOption = "127.0.0.1",
) -> None:
    """Embed pending images: lease → download → embed → submit vectors and failures."""
    if not KIND.match(kind):
        fail(f"--kind {kind!r} is not an image kind (e.g. runway, street)")
    if interval < 1:
        fail(f"--interval {interval:g} is too short: at least 1 s")
    settings = settings_from(config)
    _check_backend(settings)
    quiet_http_logs()
    vision_endpoint = settings.vision.endpoint if endpoint is None else endpoint
    embedder = None if vision_endpoint else _load_embedder(settings)
    run_worker(
        lambda: _run(
            settings,
            embedder,
            vision_endpoint,
            kind=kind,
            limit=limit,
            batch=batch or settings.vision.batch,
            concurrency=concurrency or settings.vision.concurrency,
            loop=loop,
            interval=interval,
        ),
        metrics_port,
        metrics_host,
    )


def _check_backend(settings: Settings) -> None:
    """``ingest.endpoint`` and ``ingest.secret`` must say where and how to reach the backend
    (``ingest.enabled`` is about submitting shows, which this command does not do)."""
    import msgspec

    from rk.core.runtime.client import require_ingest

    enabled = msgspec.structs.replace(settings.ingest, enabled=True)
    try:
        require_ingest(msgspec.structs.replace(settings, ingest=enabled))
    except RkError as exc:
        fail(f"rk spider embed: {exc}")


def _load_embedder(settings: Settings) -> Embedder:
    """The configured embedder plugin with its model loaded; bad config exits 2."""
    import msgspec

    from rk.core.api.lookups import get_embedder

    try:
        return get_embedder(settings.vision.embedder)(msgspec.to_builtins(settings.vision))
    except RkError as exc:
        fail(str(exc))


def _loaded(embedder: Embedder | None) -> Embedder:
    """The in-process embedder, which ``embed`` loads whenever no vision endpoint is set."""
    if embedder is None:
        raise RuntimeError("no vision endpoint and no embedder loaded")
    return embedder


class _Bar:
    """A terminal progress bar for one round at a time (stderr, only when interactive)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.progress = Progress(
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.task: TaskID | None = None

    def start(self, total: int) -> None:
        if self.task is not None:
            self.progress.remove_task(self.task)
        self.progress.start()
        self.task = self.progress.add_task("embed", total=total)

    def advance(self, count: int) -> None:
        if self.task is not None:
            self.progress.advance(self.task, count)

    def stop(self) -> None:
        self.progress.stop()


async def _run(
    settings: Settings,
    embedder: Embedder | None,
    endpoint: str,
    *,
    kind: str,
    limit: int,
    batch: int,
    concurrency: int,
    loop: bool,
    interval: float,
) -> int:
    import httpx

    from rk.core.runtime.client import (
        BackendAuthError,
        BackendClient,
        BackendError,
        BackendRejected,
    )
    from rk.core.runtime.embed_worker import (
        EmbedWorker,
        LocalEncoder,
        RemoteEncoder,
        VisionUnavailable,
    )

    stopping = asyncio.Event()
    main = asyncio.current_task()

    def on_signal() -> None:
        if stopping.is_set() and main is not None:
            main.cancel()
            return
        typer.echo("stopping: finishing the round in hand (Ctrl+C again to abort)", err=True)
        stopping.set()

    running = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        running.add_signal_handler(signum, on_signal)
    bar = _Bar() if sys.stderr.isatty() else None
    timeout = httpx.Timeout(settings.spider.timeout_s, read=max(60.0, settings.spider.timeout_s))
    try:
        async with (
            BackendClient(settings.ingest.endpoint, settings.ingest.secret) as client,
            httpx.AsyncClient(timeout=timeout) as http,
        ):
            encoder: Encoder = (
                RemoteEncoder(endpoint, http) if endpoint else LocalEncoder(_loaded(embedder))
            )
            worker = EmbedWorker(
                client,
                encoder,
                http,
                kind=kind,
                limit=limit,
                batch=batch,
                concurrency=concurrency,
                max_bytes=settings.media.max_image_bytes,
            )
            while True:
                try:
                    stats = await worker.run_round(bar)
                except (BackendAuthError, BackendRejected) as exc:
                    typer.echo(f"error: {exc}", err=True)
                    return 2
                except (BackendError, VisionUnavailable) as exc:
                    if not loop:
                        typer.echo(f"error: {exc}", err=True)
                        return 2
                    log.warning("[embed] %s; retrying in %g s", exc, interval)
                    stats = None
                finally:
                    if bar is not None:
                        bar.stop()
                if stats is not None:
                    typer.echo(f"[embed] {kind}: {stats.line()}")
                    for error in stats.errors:
                        log.info("[embed] rejected: %s", error)
                if not loop or stopping.is_set():
                    return 0
                if stats is None or stats.fetched == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stopping.wait(), timeout=interval)
                    if stopping.is_set():
                        return 0
    except asyncio.CancelledError:
        return 130
    finally:
        close = getattr(embedder, "close", None)
        if callable(close):
            close()


def register(app: typer.Typer) -> None:
    """Add ``embed`` to the ``rk spider`` group."""
    from rk.cli.spider_cmd import spider_app

    spider_app.command("embed")(embed)
