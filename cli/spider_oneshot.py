"""One-shot crawls: ``rk spider <source> …`` for every registered source, no task queue.

``-d`` prints each ShowIngest as one line of JSON on stdout (progress and logs go to
stderr) and reports nothing, so it works with no backend and no config. ``--season`` crawls
every show of a season (sources that list seasons); without ``-d`` each show's brand is
found or created in the backend by its slug.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, cast

import msgspec
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from rk.cli.common import ConfigOption, fail, settings_from
from rk.core.api.errors import RkError, SourceError
from rk.core.api.lookups import source_registry
from rk.core.api.sources import (
    BrandTarget,
    NoSuchSeason,
    SeasonSource,
    ShowSummary,
    Source,
    season_slug,
)
from rk.core.api.wire import BrandEnsure, ShowIngest
from rk.core.config import Settings
from rk.core.runtime.crawler import BrandFor, CrawlStats, crawl, crawl_season
from rk.core.runtime.unreachable import unreachable_hint

if TYPE_CHECKING:
    from rk.core.runtime.client import BackendClient
    from rk.core.runtime.http import PoliteClient
    from rk.core.runtime.media_upload import MediaUploader

DebugOption = Annotated[
    bool, typer.Option("--debug", "-d", help="Print ShowIngest JSON Lines; report nothing.")
]


def quiet_http_logs() -> None:
    """One INFO line per source request drowns the crawl's own lines; keep them for -v."""
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger("httpx").setLevel(logging.WARNING)


def add_oneshot_commands(app: typer.Typer) -> None:
    """One command per registered source (a plugin conflict shows up in ``rk plugins``)."""
    try:
        registry = source_registry()
    except RkError:
        return
    for name in registry.names():
        cls = registry.get(name)
        command = _brand_command(cls) if cls.needs_brand else _listing_command(cls)
        app.command(name, help=f"Crawl {name} once (no task queue).")(command)


def _brand_command(cls: type[Source]) -> Callable[..., None]:
    def command(
        brand_id: Annotated[
            int | None, typer.Option("--brand-id", "-b", min=1, help="Brand id in the backend.")
        ] = None,
        name: Annotated[
            str | None, typer.Option("--name", help="Designer name (no backend).")
        ] = None,
        slug: Annotated[
            str | None, typer.Option("--slug", help="The source's designer slug (no backend).")
        ] = None,
        max_shows: Annotated[
            int, typer.Option("--max-shows", "-s", min=0, help="Newest N shows (0 = all).")
        ] = 0,
        season: Annotated[
            str | None,
            typer.Option(
                "--season",
                help="A season slug (fall-2031-ready-to-wear): every show of it, or the "
                "brand's show of it with -b/--name/--slug.",
            ),
        ] = None,
        debug: DebugOption = False,
        config: ConfigOption = None,
    ) -> None:
        if season is not None:
            if not callable(getattr(cls, "list_season", None)):
                fail(f"{cls.name} cannot list a season's shows")
            try:
                season = season_slug(season)
            except ValueError as exc:
                fail(str(exc))
        elif brand_id is None and not (name or slug):
            fail("say which brand: -b <brand id in the backend>, or --name / --slug")
        settings = settings_from(config)
        quiet_http_logs()
        run = _run(
            settings,
            cls,
            max_shows,
            debug,
            brand_id=brand_id,
            name=name,
            slug=slug,
            season=season or "",
        )
        raise typer.Exit(asyncio.run(run))

    return command


def _listing_command(cls: type[Source]) -> Callable[..., None]:
    def command(
        limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Newest N posts.")] = 10,
        debug: DebugOption = False,
        config: ConfigOption = None,
    ) -> None:
        settings = settings_from(config)
        quiet_http_logs()
        raise typer.Exit(asyncio.run(_run(settings, cls, limit, debug)))

    return command


async def _run(
    settings: Settings,
    cls: type[Source],
    limit: int,
    debug: bool,
    *,
    brand_id: int | None = None,
    name: str | None = None,
    slug: str | None = None,
    season: str = "",
) -> int:
    from rk.core.runtime.client import BackendClient, require_ingest
    from rk.core.runtime.host_budget import fleet_budget
    from rk.core.runtime.http import polite_client
    from rk.core.runtime.robots import RobotsUnreachable

    needs_backend = not debug or brand_id is not None
    try:
        if needs_backend:
            require_ingest(settings)
    except RkError as exc:
        fail(str(exc))
    client = BackendClient.from_settings(settings) if needs_backend else None
    async with polite_client(settings.spider, budget=fleet_budget(settings.spider, client)) as http:
        try:
            brand = await _brand(client, cls, brand_id, name, slug, season)
            stats = await _crawl(settings, cls, http, client, brand, limit, debug, season)
        except NoSuchSeason as exc:
            fail(str(exc))
        except SourceError as exc:
            hint = unreachable_hint(exc, f"sources.{cls.name}.base_url")
            typer.echo(f"error: {exc}{hint}", err=True)
            return 1
        except RobotsUnreachable as exc:
            typer.echo(f"error: {exc}; try again in {exc.retry_in_s:.0f} s", err=True)
            return 1
        except RkError as exc:
            fail(str(exc))
        finally:
            if client is not None:
                await client.aclose()
    typer.echo(stats.summary(printed=debug), err=True)
    return 0


def _needed(client: BackendClient | None) -> BackendClient:
    """The backend client, which ``_run`` opens whenever a step needs the backend."""
    if client is None:
        raise RuntimeError("a step that talks to the backend ran without a backend client")
    return client


async def _brand(
    client: BackendClient | None,
    cls: type[Source],
    brand_id: int | None,
    name: str | None,
    slug: str | None,
    season: str,
) -> BrandTarget | None:
    """The one brand to crawl; None for listing sources and for a whole season."""
    if not cls.needs_brand or (season and brand_id is None and not (name or slug)):
        return None
    if brand_id is not None:
        info = await _needed(client).brand(brand_id)
        found = slug or info.slugs.get(cls.name, "")
        return BrandTarget(id=info.id, uid=info.uid, name=info.name, slug=found, season=season)
    return BrandTarget(name=name or slug or "", slug=slug or "", season=season)


def season_brands(client: BackendClient | None, source: str) -> BrandFor:
    """Each season show's brand: found or created in the backend by its slug.

    Without a backend (``-d``) the brand is just named as the season page names it.
    """
    from rk.core.runtime.client import retry_backend

    async def brand_for(show: ShowSummary) -> BrandTarget | None:
        if client is None:
            return BrandTarget(name=show.brand_name, slug=show.brand_slug)
        ensure = BrandEnsure(name=show.brand_name, source=source, slug=show.brand_slug)
        backend = client
        info = await retry_backend(lambda: backend.ensure_brand(ensure), what="brand")
        return BrandTarget(id=info.id, uid=info.uid, name=info.name, slug=show.brand_slug)

    return brand_for


async def _crawl(
    settings: Settings,
    cls: type[Source],
    http: PoliteClient,
    client: BackendClient | None,
    brand: BrandTarget | None,
    limit: int,
    debug: bool,
    season: str = "",
) -> CrawlStats:
    source = cls(http, settings.source_options(cls.name))
    uploader: MediaUploader | None = None
    if debug:

        async def sink(show: ShowIngest) -> None:
            sys.stdout.write(msgspec.json.encode(show).decode() + "\n")
            sys.stdout.flush()

    else:
        from rk.core.runtime.client import retry_backend
        from rk.core.runtime.media_upload import MediaUploader

        backend = _needed(client)

        async def sink(show: ShowIngest) -> None:
            await retry_backend(lambda: backend.ingest(show))

        if settings.media.upload:
            uploader = MediaUploader(backend, http, settings)

    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        disable=not console.is_terminal,
        transient=True,
    ) as bar:
        shows = bar.add_task("shows", total=None)
        images = bar.add_task("images", total=None)

        def progress(event: str, amount: int) -> None:
            if event == "listed":
                bar.update(shows, total=amount)
            elif event == "show":
                bar.advance(shows, amount)
            else:
                bar.advance(images, amount)

        if season and brand is None:
            return await crawl_season(
                cast(SeasonSource, source),
                season,
                season_brands(None if debug else client, cls.name),
                sink,
                limit=limit or None,
                uploader=uploader,
                concurrency=5,
                progress=progress,
                robots=http.robots,
            )
        return await crawl(
            source,
            brand,
            limit or None,
            sink,
            uploader=uploader,
            concurrency=5,
            progress=progress,
            robots=http.robots,
        )
