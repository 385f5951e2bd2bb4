"""``rk export dataset``: the published archive as webdataset or parquet shards."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_database

if TYPE_CHECKING:
    from rk.server.datasets import ExportProgress
    from rk.server.platform.db.database import Database

export_app = typer.Typer(help="Take the published archive elsewhere.", no_args_is_help=True)


async def _model(wanted: str) -> str:
    """The model whose vectors go with the export: ``wanted``, or the archive's only one."""
    from rk.server.platform.db.sql_rows import rows

    if wanted:
        return wanted
    models = [
        str(row["model"])
        for row in await rows("SELECT DISTINCT model FROM image_embeddings ORDER BY model")
    ]
    if len(models) != 1:
        listed = ", ".join(models) or "none"
        fail(f"--with-embeddings needs --model: this archive's models are {listed}")
    return models[0]


@export_app.command("dataset")
def dataset_command(
    out: Annotated[Path, typer.Argument(help="An empty folder, or an earlier export's.")],
    fmt: Annotated[
        str, typer.Option("--format", help="webdataset (tar shards) or parquet.")
    ] = "webdataset",
    season: Annotated[str, typer.Option("--season", help="Only this season (its name).")] = "",
    brand: Annotated[str, typer.Option("--brand", help="Only this brand (uid or name).")] = "",
    kind: Annotated[str, typer.Option("--kind", help="Only runway or street.")] = "",
    with_embeddings: Annotated[
        bool, typer.Option("--with-embeddings", help="Add .npy shards of the stored vectors.")
    ] = False,
    model: Annotated[
        str, typer.Option("--model", help="Whose vectors (default: the only one).")
    ] = "",
    shard_size: Annotated[int, typer.Option("--shard-size", help="Samples per shard.")] = 1000,
    base_url: Annotated[
        str, typer.Option("--base-url", help="The site's address for archive_url.")
    ] = "",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print counts and size; write nothing.")
    ] = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Write the published images (with filters) as shards img2dataset and clip-retrieval
    readers take: per sample .jpg, .json and .txt in tar shards (or a parquet with the image
    bytes), a parquet of metadata per shard, and .npy embeddings in the parquet's row order.

    Resumable: the images are fixed by the first run (export.json); running the same command
    again keeps the shards already written and writes the rest. Prints a line per shard.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        fail("rk export dataset needs pyarrow: pip install 'rk[dataset]'")
    from rk.core.api.lookups import open_storage
    from rk.core.api.storage import StorageContext
    from rk.core.web_urls import web_url_problem
    from rk.server.app import backend_url
    from rk.server.datasets import ExportFilters, export_dataset, plan_export

    if base_url and (problem := web_url_problem(base_url)):
        fail(f"--base-url must be an http(s) address: {problem}")
    if model and not with_embeddings:
        fail("--model names whose vectors to add: give --with-embeddings too")
    settings = settings_from(config, data_dir)
    base = (base_url or backend_url(settings)).rstrip("/")
    storage = open_storage(settings.storage_url, StorageContext(backend_url=backend_url(settings)))
    filters = ExportFilters(season=season, brand=brand, kind=kind)

    def report(progress: ExportProgress) -> None:
        typer.echo(progress.line(), err=True)

    async def work(db: Database) -> ExportProgress | None:
        chosen = await _model(model) if with_embeddings else ""
        plan = await plan_export(filters, fmt, chosen, shard_size)
        if dry_run:
            typer.echo(
                f"would write {len(plan.ids):,} images ({plan.bytes / 1e6:,.1f} MB of originals) "
                f"of {plan.filters.described()} in {plan.shards:,} {fmt} shards of up to "
                f"{shard_size:,}" + (f", with {chosen}'s vectors" if chosen else "")
            )
            return None
        try:
            return await export_dataset(storage, out, plan, base, progress=report)
        except OSError as exc:
            fail(f"cannot write the export: {' '.join(str(exc).split())}")

    done = run_with_database(settings, work)
    if done is not None:
        typer.echo(f"done: {done.line()}; {out}")


def register(app: typer.Typer) -> None:
    """Add ``rk export`` to the root app."""
    app.add_typer(export_app, name="export")
