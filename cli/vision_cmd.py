"""``rk vision serve``: the HTTP embedding service for a GPU box shared by several workers."""

from __future__ import annotations

from typing import Annotated

import typer

from rk.cli.common import ConfigOption, fail
from rk.cli.embed_cmd import ModelDirOption, ProviderOption, build_embedder

vision_app = typer.Typer(help="The vision (embedding) service.", no_args_is_help=True)

MiB = 1024 * 1024


@vision_app.command("serve")
def serve(
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8900,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    model: ModelDirOption = None,
    provider: ProviderOption = None,
    max_body_mb: Annotated[
        float, typer.Option("--max-body-mb", help="Largest request body accepted (413 above).")
    ] = 64,
    config: ConfigOption = None,
) -> None:
    """Serve POST /embed (JSON "images": base64 list) → dim, vectors, indexes, skipped."""
    import uvicorn

    from rk.plugins.clip_embed.service import create_app

    if not 0 < port < 65536:
        fail(f"--port {port}: not a TCP port")
    if max_body_mb <= 0:
        fail("--max-body-mb must be positive")
    embedder = build_embedder(config, model, provider)
    app = create_app(embedder, max_body_bytes=int(max_body_mb * MiB))
    typer.echo(
        f"vision service: {embedder.model_id} (dim {embedder.dim}, {embedder.provider}) "
        f"on http://{host}:{port}/embed",
        err=True,
    )
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")


def register(app: typer.Typer) -> None:
    """Add ``rk vision`` to the root app."""
    app.add_typer(vision_app, name="vision")
