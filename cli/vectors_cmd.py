"""``rk vectors``: rebuild the vector index, and say where vectors are searched."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_db

vectors_app = typer.Typer(help="Manage the vector index.", no_args_is_help=True)

ModelOption = Annotated[
    str | None, typer.Option("--model", "-m", help="Only this model's vectors (default: all).")
]


class _Bar:
    """A progress bar made on the first report, once the total is known."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = typer.progressbar(length=max(total, 1), label="vectors", file=None)
            self.bar.__enter__()
        self.bar.length = max(total, 1)
        self.bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


@vectors_app.command("reindex")
def reindex_command(
    model: ModelOption = None, config: ConfigOption = None, data_dir: DataDirOption = None
) -> None:
    """Rebuild the configured vector index from the stored vectors, with a progress bar.

    On PostgreSQL with pgvector this copies every missing or stale vector into its pgvector
    table in batches and (re)builds the HNSW index while the backend keeps serving.
    """
    from rk.core.api.plugins import get_plugin_manager
    from rk.server.similarity.vectors.choose import index_class, wanted_name

    settings = settings_from(config, data_dir)

    async def work() -> tuple[str, int]:
        name = wanted_name(settings.vectors)
        index = index_class(settings.vectors, get_plugin_manager())(settings.vectors)
        problem = await index.open()
        if problem is not None:
            fail(f"cannot rebuild the {name} index: {problem}")
        bar = _Bar()
        try:
            count = await index.reindex(model, bar)
        finally:
            bar.close()
            await index.close()
        return name, count

    name, count = run_with_db(settings, work)
    typer.echo(f"{name} index rebuilt: {count} vectors" + (f" of model {model}" if model else ""))


@vectors_app.command("status")
def status_command(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Which index serves this database, and each pgvector table with its state."""
    from rk.server.platform.db.sql_rows import rows
    from rk.server.similarity.vectors.choose import wanted_name
    from rk.server.similarity.vectors.pg_spaces import enabled, extension_problem

    settings = settings_from(config, data_dir)

    async def work() -> list[str]:
        name = wanted_name(settings.vectors)
        lines = [f"index: {name}"]
        if name == "pgvector":
            problem = await extension_problem()
            if problem is not None:
                return [f"index: exact (vectors.index asks for pgvector, unavailable: {problem})"]
        if not await enabled():
            return lines
        for row in await rows(
            "SELECT e.model, e.kind, e.dim, COUNT(*) AS n, s.id, s.ready_at"
            " FROM image_embeddings e LEFT JOIN vector_spaces s"
            " ON s.model = e.model AND s.kind = e.kind AND s.dim = e.dim"
            " GROUP BY e.model, e.kind, e.dim, s.id, s.ready_at ORDER BY e.model, e.kind, e.dim"
        ):
            if row["id"] is None:
                where, state = "no pgvector table", "waiting (exact index serves meanwhile)"
            else:
                where = f"rk_vectors_{row['id']}"
                state = "ready" if row["ready_at"] else "filling (exact index serves meanwhile)"
            lines.append(
                f"{row['model']} {row['kind']} {row['dim']}-d: {row['n']} vectors, {state}; {where}"
            )
        return lines

    for line in run_with_db(settings, work):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``rk vectors`` to the root app."""
    app.add_typer(vectors_app, name="vectors")
