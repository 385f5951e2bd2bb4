"""``rk colours backfill``: measure the garment palette of every image that has none yet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_storage

if TYPE_CHECKING:
    from rk.core.api.storage import Storage
    from rk.server.colour import BackfillProgress
    from rk.server.platform.db.database import Database

colours_app = typer.Typer(help="Garment colours measured from the images.", no_args_is_help=True)


@colours_app.command("backfill")
def backfill_command(
    batch: Annotated[
        int, typer.Option("--batch", help="Images measured per batch (1-1000).")
    ] = 100,
    limit: Annotated[
        int, typer.Option("--limit", help="Stop after this many images (0: all of them).")
    ] = 0,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Measure every image without a palette, from its stored thumbnail, in id order.

    Prints a line after each batch. Resumable: a run measures only images that have no
    palette yet, so running it again after an interruption (or a ``--limit``) carries on
    where the last run stopped. Images whose thumbnail is missing or unreadable are counted
    as failed and tried again by the next run.
    """
    from rk.server.colour import backfill_colours
    from rk.server.colour.backfill import MAX_BATCH

    if not 1 <= batch <= MAX_BATCH:
        fail(f"--batch must be between 1 and {MAX_BATCH}, not {batch}")
    if limit < 0:
        fail(f"--limit must be 0 (no limit) or more, not {limit}")

    def report(progress: BackfillProgress) -> None:
        typer.echo(progress.line())

    async def work(storage: Storage, db: Database) -> BackfillProgress:
        return await backfill_colours(db, storage, batch=batch, limit=limit, progress=report)

    done = run_with_storage(settings_from(config, data_dir), work)
    typer.echo(f"done: {done.line()}")


def register(app: typer.Typer) -> None:
    """Add ``rk colours`` to the root app."""
    app.add_typer(colours_app, name="colours")
