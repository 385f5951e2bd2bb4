"""``rk colours backfill``: measure the garment palette of every image that has none yet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.backfill_options import LimitOption, check_batch_and_limit
from rk.cli.common import ConfigOption, DataDirOption, settings_from
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
    limit: LimitOption = 0,
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

    check_batch_and_limit(batch, MAX_BATCH, limit)

    def report(progress: BackfillProgress) -> None:
        typer.echo(progress.line())

    async def work(storage: Storage, db: Database) -> BackfillProgress:
        return await backfill_colours(db, storage, batch=batch, limit=limit, progress=report)

    done = run_with_storage(settings_from(config, data_dir), work)
    typer.echo(f"done: {done.line()}")


def register(app: typer.Typer) -> None:
    """Add ``rk colours`` to the root app."""
    app.add_typer(colours_app, name="colours")
