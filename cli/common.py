"""What every command shares: how settings are found and how bad input is reported."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from rk.core.api.errors import RkError
from rk.core.config import Settings, load_settings
from rk.core.logs import setup_logging
from rk.core.redact import remember_secret

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


class LogChoice:
    """What the root options asked of logging (``--log-json``, ``--verbose``)."""

    json: bool = False
    verbose: bool = False


def start_logging(*, json: bool, verbose: bool) -> None:
    """Logging as the root options ask, before any settings are read."""
    LogChoice.json, LogChoice.verbose = json, verbose
    setup_logging("json" if json else "text", "DEBUG" if verbose else "INFO")


def settings_from(config: str | None, data_dir: str | None = None) -> Settings:
    """Settings for a command, turning configuration errors into exit code 2.

    Also applies the ``log`` section (the root options win) and registers the configured
    secrets with the log redactor.
    """
    try:
        settings = load_settings(config, data_dir=data_dir)
    except RkError as exc:
        fail(str(exc))
    fmt = "json" if LogChoice.json else settings.log.format
    setup_logging(fmt, "DEBUG" if LogChoice.verbose else settings.log.level)
    for secret in (settings.ingest.secret, settings.server.secret):
        remember_secret(secret)
    return settings
