"""``rk eval LABELS.csv``: recall@k and MRR of every embedding space the archive holds.

Each space (a model with vectors in ``image_embeddings``) is searched with the queries
embedded by that model's own embedder: ``vision.model`` and each ``--model`` export
directory. A space without an embedder, or an embedder without a space, is exit 2, so the
table always compares every space the archive holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_database
from rk.cli.eval_labels import Label, read_labels
from rk.core.api.errors import RkError
from rk.core.config import Settings

if TYPE_CHECKING:
    from rk.core.api.embedders import Embedder
    from rk.server.platform.db.database import Database
    from rk.server.similarity.evaluation import SpaceScore


def parse_ks(text: str) -> tuple[int, ...]:
    """``1,5,10`` → (1, 5, 10): distinct cut-offs between 1 and MAX_K, ascending."""
    from rk.server.similarity.evaluation import MAX_K

    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        fail(f"--k {text!r}: expected cut-offs like 1,5,10")
    if not ks or ks[0] < 1 or ks[-1] > MAX_K:
        fail(f"--k {text!r}: cut-offs must be between 1 and {MAX_K}")
    return tuple(ks)


def load_embedders(settings: Settings, models: list[str]) -> dict[str, Embedder]:
    """The embedder of ``vision.model`` and of each ``--model``, by model id."""
    from rk.core.api.lookups import get_embedder

    dirs = ([settings.vision.model] if settings.vision.model else []) + models
    if not dirs:
        fail("no model to embed the queries: set vision.model or pass --model DIR")
    loaded: dict[str, Embedder] = {}
    for directory in dirs:
        options = msgspec.to_builtins(settings.vision)
        options["model"] = directory
        try:
            embedder = get_embedder(settings.vision.embedder)(options)
        except RkError as exc:
            fail(str(exc))
        if embedder.model_id in loaded:  # the same model twice (vision.model and --model)
            close_embedder(embedder)
        else:
            loaded[embedder.model_id] = embedder
    return loaded


def close_embedder(embedder: Embedder) -> None:
    """Release the embedder's threads, when it has any."""
    close = getattr(embedder, "close", None)
    if callable(close):
        close()


def embed_queries(embedder: Embedder, labels: list[Label]) -> list[list[float]]:
    """One vector per label, in order; a text tower missing or a picture that does not
    decode is exit 2 naming the row."""
    vectors: dict[int, list[float]] = {}
    texts = [label for label in labels if label.text is not None]
    pictures = [label for label in labels if label.image is not None]
    if texts:
        try:
            embedded = embedder.embed_texts([label.text or "" for label in texts])
        except RkError as exc:
            fail(f"row {texts[0].row}: {exc}")
        vectors.update((label.row, vector) for label, vector in zip(texts, embedded, strict=True))
    if pictures:
        result = embedder.embed_images([label.image or b"" for label in pictures])
        if result.skipped:
            bad = pictures[result.skipped[0]]
            fail(f"row {bad.row}: image {bad.image_path!r} is not a picture that decodes")
        vectors.update(
            (pictures[i].row, vector)
            for i, vector in zip(result.indexes, result.vectors, strict=True)
        )
    return [vectors[label.row] for label in labels]


def _report(model: str, done: int, total: int) -> None:
    """A progress line on stderr about every tenth of a space's queries."""
    if done == total or done % max(1, total // 10) == 0:
        typer.echo(f"eval {model}: {done}/{total} queries", err=True)


def print_table(scores: list[SpaceScore], ks: tuple[int, ...]) -> None:
    """One row per space, best MRR first."""
    width = max(len("model"), *(len(score.model) for score in scores))
    head = f"{'model':<{width}}  {'vectors':>8}  {'queries':>7}"
    head += "".join(f"  {'recall@' + str(k):>10}" for k in ks) + f"  {'MRR':>6}"
    typer.echo(head)
    for score in sorted(scores, key=lambda s: (-s.mrr, s.model)):
        line = f"{score.model:<{width}}  {score.vectors:>8}  {score.queries:>7}"
        line += "".join(f"  {score.recall[str(k)]:>10.3f}" for k in ks) + f"  {score.mrr:>6.3f}"
        typer.echo(line)


def eval_command(
    labels_csv: Annotated[Path, typer.Argument(help="CSV: query or image, and expected ids.")],
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="Another model's export directory (repeatable)."),
    ] = None,
    k: Annotated[str, typer.Option("--k", help="Recall cut-offs, comma separated.")] = "1,5,10",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Recall@k and MRR of each embedding space on the operator's labelled queries.

    The CSV has a header with an ``expected`` column (image ids, space separated) and a
    ``query`` (words) or ``image`` (a local picture, relative to the CSV) column; each row
    fills one of the two. Searches run as the site's do: the configured vector index,
    published images only.
    """
    from rk.cli.eval_labels import LabelsError

    ks = parse_ks(k)
    try:
        labels = read_labels(labels_csv)
    except LabelsError as exc:
        fail(str(exc))
    settings = settings_from(config, data_dir)
    embedders = load_embedders(settings, model or [])
    try:
        scores = run_with_database(
            settings, lambda db: _evaluate(db, settings, embedders, labels, ks)
        )
    finally:
        for embedder in embedders.values():
            close_embedder(embedder)
    if as_json:
        body: dict[str, Any] = {"k": list(ks), "queries": len(labels), "spaces": scores}
        typer.echo(msgspec.json.encode(body).decode())
    else:
        print_table(scores, ks)


async def _evaluate(
    db: Database,
    settings: Settings,
    embedders: dict[str, Embedder],
    labels: list[Label],
    ks: tuple[int, ...],
) -> list[SpaceScore]:
    """Check spaces against embedders and the expected ids, then score every space."""
    from rk.core.api.plugins import get_plugin_manager
    from rk.server.similarity.evaluation import (
        EvalError,
        archive_spaces,
        check_expected,
        evaluate_space,
    )
    from rk.server.similarity.vectors.choose import open_vector_index

    del db  # the tables are bound; the evaluation reads through them
    spaces = await archive_spaces()
    if not spaces:
        raise EvalError("this archive has no vectors yet: nothing to evaluate")
    for space in spaces:
        if space not in embedders:
            raise EvalError(
                f"model {space} has vectors but no embedder here: pass --model with its export"
            )
    for model_id in embedders:
        if model_id not in spaces:
            raise EvalError(f"model {model_id} has no vectors in this archive")
    await check_expected([i for label in labels for i in label.expected])
    index = await open_vector_index(settings.vectors, get_plugin_manager())
    scores = []
    try:
        for space, count in spaces.items():
            typer.echo(f"eval {space}: embedding {len(labels)} queries", err=True)
            vectors = await asyncio.to_thread(embed_queries, embedders[space], labels)
            queries = [
                (vector, label.expected) for vector, label in zip(vectors, labels, strict=True)
            ]
            scores.append(
                await evaluate_space(space, count, queries, ks, index=index, progress=_report)
            )
    finally:
        await index.close()
    return scores


def register(app: typer.Typer) -> None:
    """Add ``rk eval`` to the root app."""
    app.command("eval")(eval_command)
