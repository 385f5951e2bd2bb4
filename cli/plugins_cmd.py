"""``rk plugins``: what is loaded, with versions, hooks and load errors."""

from __future__ import annotations

from typing import Annotated

import msgspec
import typer

from rk.core.api.plugins import get_plugin_manager, plugin_info


def plugins(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the loaded plugins: name, version, hooks implemented, load error."""
    infos = plugin_info(get_plugin_manager())
    if as_json:
        typer.echo(msgspec.json.encode([info.__dict__ for info in infos]).decode())
        return
    for info in infos:
        status = f"ERROR {info.error}" if info.error else ", ".join(info.hooks) or "(no hooks)"
        typer.echo(f"{info.name:<16} {info.version or '-':<10} {status}")


def register(app: typer.Typer) -> None:
    """Add ``rk plugins`` to the root app."""
    app.command("plugins")(plugins)
