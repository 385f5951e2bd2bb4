"""``rk brands add|list|import``: the brands crawl tasks are made for."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_db

brands_app = typer.Typer(help="Manage brands.", no_args_is_help=True)


@brands_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Brand name as shown to moderators.")],
    slug: Annotated[
        list[str] | None, typer.Option("--slug", help="source=slug, repeatable.")
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Add a brand (an existing name is reported, not duplicated)."""
    from rk.server.brands.management import add_brand, parse_slugs

    settings = settings_from(config, data_dir)
    info, created = run_with_db(settings, lambda: add_brand(name, parse_slugs(slug or [])))
    verb = "added" if created else "exists"
    typer.echo(f"{verb}: id={info.id} uid={info.uid} name={info.name} slugs={info.slugs or {}}")


@brands_app.command("list")
def list_(
    prefix: Annotated[str, typer.Option("--prefix", help="Only names starting with this.")] = "",
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """List brands by name."""
    from rk.server.brands.management import list_brands

    settings = settings_from(config, data_dir)
    for info in run_with_db(settings, lambda: list_brands(prefix)):
        slugs = " ".join(f"{k}={v}" for k, v in sorted(info.slugs.items()))
        typer.echo(f"{info.id:>6}  {info.uid:<10}  {info.name}  {slugs}".rstrip())


@brands_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="One brand per line: Name | vogue=slug …")],
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Add every brand of a file; existing names are skipped, bad lines listed."""
    from rk.server.brands.management import import_brands

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{file}: cannot read ({type(exc).__name__})")
    settings = settings_from(config, data_dir)
    report = run_with_db(settings, lambda: import_brands(text))
    for line in report.bad:
        typer.echo(f"skipped {line}", err=True)
    typer.echo(report.summary())


def register(app: typer.Typer) -> None:
    """Add ``rk brands`` to the root app."""
    app.add_typer(brands_app, name="brands")
