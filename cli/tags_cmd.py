"""``rk tags``: check the tag vocabulary, and tag every image whose tags are out of date."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rk.cli.backfill_options import LimitOption, check_batch_and_limit
from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_database
from rk.core.api.errors import RkError

if TYPE_CHECKING:
    from rk.server.platform.db.database import Database
    from rk.server.tags import TagProgress

tags_app = typer.Typer(help="Zero-shot tags: garments, patterns, materials.", no_args_is_help=True)


@tags_app.command("check")
def check_command(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Check the vocabulary (the shipped file and ``tags.vocabulary_extra``); print its
    size, groups and digest, or one line saying what is wrong (exit 2)."""
    from rk.server.tags import load_vocabulary

    settings = settings_from(config, data_dir)
    try:
        vocabulary = load_vocabulary(settings.tags.vocabulary_extra)
    except RkError as exc:
        fail(str(exc))
    groups = ", ".join(f"{name} {len(tags)}" for name, tags in vocabulary.groups.items())
    typer.echo(f"vocabulary: {len(vocabulary.tags)} tags ({groups}); digest {vocabulary.digest}")


@tags_app.command("backfill")
def backfill_command(
    batch: Annotated[int, typer.Option("--batch", help="Images tagged per batch (1-5000).")] = 500,
    limit: LimitOption = 0,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Tag every image whose vector under ``vision.model`` has no tags from this model and
    vocabulary yet, from the stored vectors (no image is read), in id order.

    Prints a line after each batch. Resumable: a run tags only what is out of date, so
    running it again after an interruption (or a ``--limit``) carries on where it stopped,
    and a changed vocabulary or model tags everything again. ``auto`` tags are replaced;
    tags a moderator confirmed or removed are kept as they are.
    """
    import asyncio

    import msgspec

    from rk.core.api.lookups import get_embedder
    from rk.server.tags import MAX_BATCH, load_tags, load_vocabulary, tag_pending

    check_batch_and_limit(batch, MAX_BATCH, limit)
    settings = settings_from(config, data_dir)
    if not settings.vision.model:
        fail("vision.model is not set: tags are computed with the model's text tower")
    try:
        load_vocabulary(settings.tags.vocabulary_extra)
        embedder = get_embedder(settings.vision.embedder)(msgspec.to_builtins(settings.vision))
        vectors = asyncio.run(load_tags(settings, embedder)).vectors
    except RkError as exc:
        fail(str(exc))
    if vectors is None:
        fail(f"model {embedder.model_id} has no text tower: it cannot compute tags")

    def report(progress: TagProgress) -> None:
        typer.echo(progress.line())

    async def work(_db: Database) -> TagProgress:
        return await tag_pending(vectors, batch=batch, limit=limit, progress=report)

    done = run_with_database(settings, work)
    typer.echo(
        f"done: {done.line()} (model {vectors.model}, vocabulary {vectors.vocabulary.digest[:12]})"
    )


def register(app: typer.Typer) -> None:
    """Add ``rk tags`` to the root app."""
    app.add_typer(tags_app, name="tags")
