"""``rk embed export`` (CLIP checkpoint → ONNX directory) and ``rk embed info`` (what loads)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import msgspec
import typer

from rk.cli.common import ConfigOption, fail, settings_from
from rk.core.api.errors import RkError

if TYPE_CHECKING:
    from rk.core.api.embedders import Embedder

embed_app = typer.Typer(
    help="Embedding models: export a CLIP to ONNX, inspect one.", no_args_is_help=True
)

ModelDirOption = Annotated[
    str | None,
    typer.Option("--model", help="CLIP export directory (default: vision.model from the config)."),
]
ProviderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--provider",
        help="Execution provider to request, repeatable (cuda, cpu, …; default: vision.providers).",
    ),
]


def build_embedder(config: str | None, model: str | None, providers: list[str] | None) -> Embedder:
    """The configured embedder (``vision.embedder``), with CLI overrides; bad input exits 2."""
    from rk.core.api.lookups import get_embedder

    vision = settings_from(config).vision
    options = msgspec.to_builtins(vision)
    if model:
        options["model"] = model
    if providers:
        options["providers"] = providers
    try:
        return get_embedder(vision.embedder)(options)
    except RkError as exc:
        fail(str(exc))


@embed_app.command("export")
def export(
    model: Annotated[
        str, typer.Option("--model", help="Hugging Face hub id or local CLIP / SigLIP checkpoint.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Directory to write the ONNX export to.")],
    model_id: Annotated[
        str | None, typer.Option("--model-id", help="Name to record (default: the hub id / dir).")
    ] = None,
    no_text: Annotated[
        bool, typer.Option("--no-text", help="Export the image tower only.")
    ] = False,
    opset: Annotated[
        int | None, typer.Option("--opset", help="ONNX opset (default: optimum's).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite a non-empty --out.")] = False,
) -> None:
    """Export a CLIP or SigLIP checkpoint (needs the export extra: torch, transformers, optimum)."""
    from rk.plugins.clip_embed.export import export_model

    if out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        fail(f"--out {out}: directory is not empty (use --force to overwrite)")
    try:
        report = export_model(model, out, model_id=model_id, text=not no_text, opset=opset)
    except RkError as exc:
        fail(str(exc))
    typer.echo(f"exported {report.model_id} (dim {report.dim}) to {report.out}")
    for name in report.files:
        typer.echo(f"  {name}")


@embed_app.command("info")
def info(
    model: ModelDirOption = None,
    provider: ProviderOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")] = False,
) -> None:
    """Load the model and print its id, dim, text tower, and requested vs ACTIVE provider."""
    embedder = build_embedder(config, model, provider)
    details = {
        "embedder": type(embedder).name,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "text_tower": embedder.has_text,
        "providers_requested": list(getattr(embedder, "requested_providers", [])),
        "provider_active": embedder.provider,
    }
    if as_json:
        typer.echo(msgspec.json.encode(details).decode())
        return
    for key, value in details.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        if isinstance(value, bool):
            shown = "yes" if value else "no"
        typer.echo(f"{key:<20} {shown}")


def register(app: typer.Typer) -> None:
    """Add ``rk embed`` to the root app."""
    app.add_typer(embed_app, name="embed")
