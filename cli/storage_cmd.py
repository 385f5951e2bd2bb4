"""``rk storage gc``: delete orphaned objects and report missing ones; ``rk storage
renditions``: give images stored before rendition ladders existed their ladder."""

from __future__ import annotations

from typing import Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_db

storage_app = typer.Typer(help="Look after the object store.", no_args_is_help=True)


@storage_app.command("gc")
def gc_command(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would be deleted; delete nothing.")
    ] = False,
    grace_s: Annotated[
        int | None,
        typer.Option(
            "--grace-s",
            min=0,
            help="Keep unreferenced objects younger than this (media.gc_grace_s).",
        ),
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Delete objects nothing references (older than the grace period); count missing ones.

    Referenced: images of live articles, keys a running ingest job has claimed, and keys
    named by shows still waiting to be ingested. Prints one line per fact; exit code 0.
    """
    from rk.core.api.lookups import open_storage
    from rk.core.api.storage import StorageContext
    from rk.server.app import backend_url
    from rk.server.media.storage_gc import sweep

    settings = settings_from(config, data_dir)
    grace = settings.media.gc_grace_s if grace_s is None else grace_s
    storage = open_storage(settings.storage_url, StorageContext(backend_url=backend_url(settings)))

    async def work() -> list[str]:
        try:
            report = await sweep(storage, grace_s=grace, dry_run=dry_run)
        except OSError as exc:
            fail(f"storage unavailable: {' '.join(str(exc).split())}")
        return report.lines()

    for line in run_with_db(settings, work):
        typer.echo(line)


@storage_app.command("renditions")
def renditions_command(
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, help="Stop after this many originals (default: all)."),
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Make the WebP rendition ladder of every live image that has none yet, with progress.

    Resumable: the database records each original once its ladder is stored, so a run
    that stops (Ctrl-C, --limit) is continued by running it again. Prints a progress line
    after each batch and a last one when done; exit code 0.
    """
    from rk.core.api.lookups import open_storage
    from rk.core.api.storage import StorageContext
    from rk.server.app import backend_url
    from rk.server.media.rendition_backfill import BackfillProgress, backfill_renditions

    settings = settings_from(config, data_dir)
    storage = open_storage(settings.storage_url, StorageContext(backend_url=backend_url(settings)))

    def report(progress: BackfillProgress) -> None:
        typer.echo(progress.line())

    async def work() -> BackfillProgress:
        try:
            return await backfill_renditions(storage, limit=limit, on_progress=report)
        except OSError as exc:
            fail(f"storage unavailable: {' '.join(str(exc).split())}")

    done = run_with_db(settings, work)
    typer.echo(f"{done.left} originals left without renditions")


def register(app: typer.Typer) -> None:
    """Add ``rk storage`` to the root app."""
    app.add_typer(storage_app, name="storage")
