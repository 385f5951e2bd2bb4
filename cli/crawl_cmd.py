"""``rk crawl add|add-season|batch|list|retry|cancel|delete``: the operator's crawl-task queue.

Every command goes straight to the database (``run_with_database``) through the same service the
spiders' API and the admin UI use (``rk.server.crawl.tasks``). An unknown brand,
task id, source or status is one line on stderr and exit code 2.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, TypeVar, cast

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_database
from rk.core.api.errors import RkError
from rk.core.config import Settings

if TYPE_CHECKING:
    from rk.core.api.wire import BrandInfo
    from rk.server.crawl.tasks import CrawlTaskRow, CrawlTasks, TaskStatus
    from rk.server.platform.db.database import Database

crawl_app = typer.Typer(
    help="Queue brands for the spiders and watch the queue.", no_args_is_help=True
)

T = TypeVar("T")
STATUSES = ("queued", "running", "done", "failed", "canceled")
ERROR_WIDTH = 60

SourceOption = Annotated[str, typer.Option("--source", help="Source plugin that may claim it.")]
MaxShowsOption = Annotated[
    int, typer.Option("--max-shows", "-s", min=0, help="Newest N shows (0 = every show).")
]
PriorityOption = Annotated[int, typer.Option("--priority", help="Higher is claimed first.")]
TaskIdArg = Annotated[int, typer.Argument(min=1, help="The crawl task's id.")]


def _settings_for(source: str, config: str | None, data_dir: str | None) -> Settings:
    """The settings, after exiting 2 unless ``source`` is registered (nobody claims its tasks)."""
    from rk.core.api.lookups import get_source

    try:
        get_source(source)
    except RkError as exc:
        fail(str(exc))
    return settings_from(config, data_dir)


def _with_tasks(settings: Settings, work: Callable[[CrawlTasks], Awaitable[T]]) -> T:
    """Run ``work(tasks)`` against the configured database, closing the queue after."""
    from rk.server.crawl.tasks import CrawlTasks

    async def main(db: Database) -> T:
        tasks = CrawlTasks.on(db, settings.queues)
        try:
            return await work(tasks)
        finally:
            await tasks.close()

    return run_with_database(settings, main)


def shows_text(max_shows: int) -> str:
    """How many shows a task crawls, in words (0 is every show)."""
    return "every show" if max_shows == 0 else f"max {max_shows}"


@crawl_app.command("add")
def add(
    brand: Annotated[str | None, typer.Argument(help="The brand's name (any case).")] = None,
    brand_id: Annotated[
        int | None, typer.Option("--id", min=1, help="The brand's id instead of its name.")
    ] = None,
    max_shows: MaxShowsOption = 3,
    priority: PriorityOption = 0,
    source: SourceOption = "vogue",
    again: Annotated[
        bool, typer.Option("--again", help="Queue it even if the brand has a task waiting.")
    ] = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Queue one brand for crawling (refused while it has a queued or running task)."""
    if (brand is None) == (brand_id is None):
        fail("name the brand, or give --id N (not both)")
    settings = _settings_for(source, config, data_dir)

    async def work(tasks: CrawlTasks) -> str:
        info = await _brand_of(brand, brand_id)
        waiting = await tasks.active_task(info.id, source)
        if waiting is not None and not again:
            fail(
                f"{info.name} (id={info.id}) already has task {waiting} queued or running on"
                f" {source} (--again queues another)"
            )
        task_id = await tasks.add_task(info.id, max_shows, priority, source)
        return (
            f"queued task {task_id}: {info.name} (id={info.id}) on {source},"
            f" {shows_text(max_shows)}"
        )

    typer.echo(_with_tasks(settings, work))


async def _brand_of(name: str | None, brand_id: int | None) -> BrandInfo:
    """The brand by ``--id`` or by name; exit 2 when there is none."""
    from rk.server.brands.lookup import brand_info
    from rk.server.brands.management import BrandInputError, brand_named

    if brand_id is not None:
        info = await brand_info(str(brand_id))
        if info is None or info.id != brand_id:
            fail(f"no brand with id {brand_id} (see: rk brands list)")
        return info
    try:
        found = await brand_named(name or "")
    except BrandInputError as exc:
        fail(str(exc))
    if found is None:
        fail(f"no brand named {name!r} (see: rk brands list; --id N takes an id)")
    return found


@crawl_app.command("add-season")
def add_season(
    source: Annotated[str, typer.Argument(help="Source plugin that lists seasons (vogue).")],
    season: Annotated[str, typer.Argument(help="Season slug, e.g. fall-2031-ready-to-wear.")],
    priority: PriorityOption = 0,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Queue every show of a season: one task per brand, missing brands created with their slug."""
    from rk.core.api.errors import SourceError
    from rk.core.api.sources import NoSuchSeason
    from rk.server.crawl.seasons import queue_season, season_brands

    settings = _settings_for(source, config, data_dir)
    try:
        slug, shows = asyncio.run(season_brands(settings, source, season))
    except (ValueError, NoSuchSeason) as exc:
        fail(str(exc))
    except SourceError as exc:
        fail(str(exc), code=1)
    except RkError as exc:
        fail(str(exc))
    if not shows:
        fail(f"{source} season {slug} lists no shows: nothing queued", code=1)

    async def work(tasks: CrawlTasks) -> str:
        report = await queue_season(tasks, source, slug, shows, priority)
        lines = [f"queued task {task_id}: {name}" for task_id, name in report.queued]
        return "\n".join([*lines, report.summary(source, slug)])

    typer.echo(_with_tasks(settings, work))


@crawl_app.command("batch")
def batch(
    prefix: Annotated[str, typer.Option("--prefix", help="Brands whose name starts with this.")],
    max_shows: MaxShowsOption = 3,
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="At most this many.")] = 50,
    priority: PriorityOption = 0,
    source: SourceOption = "vogue",
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Queue brands by name prefix, skipping those with a queued or running task."""
    settings = _settings_for(source, config, data_dir)

    async def work(tasks: CrawlTasks) -> list[int]:
        return await tasks.batch_add(prefix, max_shows, count, source, priority)

    ids = _with_tasks(settings, work)
    listed = f": {', '.join(map(str, ids))}" if ids else ""
    typer.echo(f"queued {len(ids)} tasks for brands starting with {prefix!r}{listed}")


@crawl_app.command("list")
def list_(
    status: Annotated[
        str | None, typer.Option("--status", help=f"Only one of: {', '.join(STATUSES)}.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many rows.")] = 200,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """List crawl tasks, newest first."""
    if status is not None and status not in STATUSES:
        fail(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
    settings = settings_from(config, data_dir)

    async def work(tasks: CrawlTasks) -> list[CrawlTaskRow]:
        return await tasks.list_tasks(cast("TaskStatus | None", status), limit)

    rows = _with_tasks(settings, work)
    if not rows:
        typer.echo("no crawl tasks" + (f" with status {status}" if status else ""))
        return
    typer.echo(table(rows))


def table(rows: list[CrawlTaskRow]) -> str:
    """The rows of ``list_tasks`` as an aligned text table."""
    head = (
        "id",
        "status",
        "brand",
        "source",
        "max_shows",
        "season",
        "worker",
        "attempts",
        "shows_submitted",
        "last_error",
    )
    body = [
        (
            str(r.id),
            r.status,
            r.brand_name or f"(brand {r.brand_id} gone)",
            r.source,
            str(r.max_shows),
            r.season or "-",
            r.worker or "-",
            str(r.attempts),
            str(r.shows_submitted),
            _short(r.last_error),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    numeric = {0, 4, 7, 8}

    def fmt(line: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ]
        return "  ".join(cells).rstrip()

    return "\n".join(fmt(line) for line in [head, *body])


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= ERROR_WIDTH else line[: ERROR_WIDTH - 1] + "…"


def _task_command(verb: str, done: str) -> Callable[..., None]:
    def command(
        task_id: TaskIdArg, config: ConfigOption = None, data_dir: DataDirOption = None
    ) -> None:
        settings = settings_from(config, data_dir)

        async def work(tasks: CrawlTasks) -> None:
            await getattr(tasks, verb)(task_id)

        _with_tasks(settings, work)
        typer.echo(f"task {task_id} {done}")

    return command


crawl_app.command("retry", help="Queue a failed, done or canceled task again (attempts reset).")(
    _task_command("retry", "queued again")
)
crawl_app.command("cancel", help="Stop a task from being claimed (a running spider finishes it).")(
    _task_command("cancel", "canceled")
)
crawl_app.command("delete", help="Remove a task row (nothing else is touched).")(
    _task_command("delete", "deleted")
)


def register(app: typer.Typer) -> None:
    """Add ``rk crawl`` to the root app."""
    app.add_typer(crawl_app, name="crawl")
