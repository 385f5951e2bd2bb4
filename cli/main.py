"""The ``rk`` command: wires every sub-command; bad input exits with code 2 and one line."""

from __future__ import annotations

import faulthandler
import sys
from typing import Annotated

import typer

from rk import __version__
from rk.cli import (
    admin_cmd,
    articles_cmd,
    brands_cmd,
    colours_cmd,
    config_cmd,
    crawl_cmd,
    db_cmd,
    doctor_cmd,
    embed_cmd,
    eval_cmd,
    export_cmd,
    plugins_cmd,
    serve_cmd,
    spider_cmd,
    spider_embed,
    storage_cmd,
    tags_cmd,
    vectors_cmd,
    vision_cmd,
)
from rk.cli.common import start_logging
from rk.core.api.errors import RkError

app = typer.Typer(
    name="rk",
    help="rk: a moderated archive of runway and street-style imagery.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"rk {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
    log_json: Annotated[
        bool, typer.Option("--log-json", help="Log one JSON object per line (log.format: json).")
    ] = False,
) -> None:
    """rk: collect, moderate and search fashion imagery."""
    start_logging(json=log_json, verbose=verbose)


plugins_cmd.register(app)
config_cmd.register(app)
db_cmd.register(app)
brands_cmd.register(app)
admin_cmd.register(app)
articles_cmd.register(app)
crawl_cmd.register(app)
spider_cmd.register(app)
spider_embed.register(app)
embed_cmd.register(app)
vision_cmd.register(app)
serve_cmd.register(app)
vectors_cmd.register(app)
doctor_cmd.register(app)
storage_cmd.register(app)
colours_cmd.register(app)
tags_cmd.register(app)
eval_cmd.register(app)
export_cmd.register(app)


def run() -> None:
    """Console-script entry: any RkError that escapes a command is one line and exit 2. A
    crash in native code (SIGSEGV, SIGABRT) prints every thread's Python stack first, so a
    process that dies without a word still says where."""
    faulthandler.enable()
    try:
        app()
    except RkError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
