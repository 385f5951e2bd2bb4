"""``rk config show``: the effective settings, secrets masked, each with where it came from."""

from __future__ import annotations

from typing import Any

import typer
import yaml

from rk.cli.common import ConfigOption, DataDirOption, settings_from
from rk.core.config import Settings, find_config, masked
from rk.core.config_origins import effective, origin_of, setting_origins

config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)


def _scalar(value: Any) -> str:
    """One YAML value on one line (flow style for lists and mappings)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def render(settings: Settings, origins: dict[str, str]) -> list[str]:
    """YAML lines of the effective settings, each leaf followed by ``# <origin>``."""
    data = masked(settings)
    data["database"] = masked_url(settings, "database")
    data["storage"] = masked_url(settings, "storage")
    lines: list[str] = []

    def walk(node: dict[str, Any], prefix: str, indent: str) -> None:
        for key, value in node.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                lines.append(f"{indent}{key}:")
                walk(value, dotted + ".", indent + "  ")
            else:
                lines.append(f"{indent}{key}: {_scalar(value)}  # {origin_of(dotted, origins)}")

    walk(data, "", "")
    return lines


def masked_url(settings: Settings, key: str) -> str:
    """The effective database or storage URL (embedded default spelled out), masked."""
    if key == "database":
        return str(masked(Settings(database=settings.database_url))["database"])
    return str(masked(Settings(storage=settings.storage_url))["storage"])


@config_app.command("show")
def show(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Print the effective configuration (file + RK_* overrides) with secrets masked."""
    settings = settings_from(config, data_dir)
    path, why = find_config(config)
    origins = effective(settings, setting_origins(config, data_dir=data_dir))
    typer.echo(
        f"# from {path or 'embedded default'} ({why}); '# …' says where each value came from"
    )
    typer.echo("\n".join(render(settings, origins)))


def register(app: typer.Typer) -> None:
    """Add ``rk config`` to the root app."""
    app.add_typer(config_app, name="config")
