"""What every command shares: how settings are found and how bad input is reported."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from rk.core.config import Settings, load_settings
from rk.core.errors import RkError

ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        "-c",
        help="config.yml to use (else $RK_CONFIG, else ./config.yml, else the embedded default).",
    ),
]
DataDirOption = Annotated[
    str | None,
    typer.Option(
        "--data-dir", help="Data directory for SQLite and file:// media (default ./rk-data)."
    ),
]


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line to stderr and exit (2 = bad input or configuration)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def settings_from(config: str | None, data_dir: str | None = None) -> Settings:
    """Settings for a command, turning configuration errors into exit code 2."""
    try:
        return load_settings(config, data_dir=data_dir)
    except RkError as exc:
        fail(str(exc))
