"""``rk config show``: the effective settings, secrets masked."""

from __future__ import annotations

import typer
import yaml

from rk.cli.common import ConfigOption, DataDirOption, settings_from
from rk.core.config import find_config, masked

config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)


@config_app.command("show")
def show(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Print the effective configuration (file + RK_* overrides) with secrets masked."""
    settings = settings_from(config, data_dir)
    path, why = find_config(config)
    typer.echo(f"# from {path or 'embedded default'} ({why})")
    typer.echo(yaml.safe_dump(masked(settings), sort_keys=False).rstrip())


def register(app: typer.Typer) -> None:
    """Add ``rk config`` to the root app."""
    app.add_typer(config_app, name="config")
