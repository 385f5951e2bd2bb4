"""``rk storage gc``: delete orphaned objects and report missing ones; ``rk storage
renditions``: give images stored before rendition ladders existed their ladder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, settings_from
from rk.cli.db_session import run_with_storage

if TYPE_CHECKING:
    from rk.core.api.storage import Storage
    from rk.server.platform.db.database import Database

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
    from rk.server.media.storage_gc import sweep

    settings = settings_from(config, data_dir)
    grace = settings.media.gc_grace_s if grace_s is None else grace_s

    async def work(storage: Storage, _: Database) -> list[str]:
        return (await sweep(storage, grace_s=grace, dry_run=dry_run)).lines()

    for line in run_with_storage(settings, work):
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
    from rk.server.media.rendition_backfill import BackfillProgress, backfill_renditions

    def report(progress: BackfillProgress) -> None:
        typer.echo(progress.line())

    async def work(storage: Storage, _: Database) -> BackfillProgress:
        return await backfill_renditions(storage, limit=limit, on_progress=report)

    done = run_with_storage(settings_from(config, data_dir), work)
    typer.echo(f"{done.left} originals left without renditions")


def register(app: typer.Typer) -> None:
    """Add ``rk storage`` to the root app."""
    app.add_typer(storage_app, name="storage")
