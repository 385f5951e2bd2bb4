"""``rk articles list|publish|reject|delete``: moderation from the shell.

The same service as the console (``rk.server.moderation.moderation``): the same audit rows
(actor: the shell user, via ``cli``), the same ``rk_article_status_changed`` events, and
a delete queues the same media cleanup. Unknown ids, tabs or brands exit with code 2.
"""

from __future__ import annotations

import getpass
from typing import Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_db
from rk.core.config import Settings

articles_app = typer.Typer(help="List and moderate articles (galleries).", no_args_is_help=True)

IdsArg = Annotated[list[int], typer.Argument(min=1, help="Article ids.")]


def _moderate(settings: Settings, ids: list[int], action: str) -> None:
    from rk.core.api.plugins import get_plugin_manager
    from rk.server.app import backend_url
    from rk.server.moderation.moderation import Actor, moderate, summary

    actor = Actor(name=f"{getpass.getuser()} (shell)"[:64], via="cli")
    pm = get_plugin_manager()
    base = backend_url(settings)
    changes = run_with_db(settings, lambda: moderate(pm, ids, action, actor, backend_url=base))
    for change in changes:
        what = f"{change.old} → {change.new}" if change.changed else f"already {change.new}"
        typer.echo(f"article {change.article_id}: {what}")
    typer.echo(summary(action, changes))


@articles_app.command("list")
def list_(
    status: Annotated[
        str, typer.Option("--status", help="pending, published, rejected or deleted.")
    ] = "pending",
    brand: Annotated[str, typer.Option("--brand", help="Brand id, uid or exact name.")] = "",
    limit: Annotated[int, typer.Option("--limit", min=1, max=500, help="Rows to show.")] = 50,
    before: Annotated[
        int | None, typer.Option("--before", min=1, help="Only ids below this (next page).")
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Articles of one status, newest first: id, brand, season, city, source, images."""
    from rk.server.brands.management import find_brand
    from rk.server.console.articles import TABS, list_articles

    if status not in TABS:
        fail(f"--status must be one of {', '.join(TABS)}, not {status!r}")
    settings = settings_from(config, data_dir)

    async def work() -> tuple[list[str], int | None]:
        brand_id = 0
        if brand:
            found = await find_brand(brand)
            if found is None:
                fail(f"no brand {brand!r}")
            brand_id = found.id
        page = await list_articles(None, status, brand_id=brand_id, before=before, limit=limit)
        lines = [
            f"{row.id:>7}  {row.brand or '—':<24.24}  {row.season or '—':<28.28}"
            f"  {row.city or '—':<12.12}  {row.source:<13}  {row.images:>4} images"
            for row in page.items
        ]
        return lines, page.next_before

    lines, next_before = run_with_db(settings, work)
    if not lines:
        typer.echo(f"no {status} articles")
    for line in lines:
        typer.echo(line)
    if next_before is not None:
        typer.echo(f"more: rk articles list --status {status} --before {next_before}")


@articles_app.command("publish")
def publish(ids: IdsArg, config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Publish articles: visitors see them."""
    _moderate(settings_from(config, data_dir), ids, "publish")


@articles_app.command("reject")
def reject(ids: IdsArg, config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Reject articles: hidden, and a re-crawl of the same show stays rejected."""
    _moderate(settings_from(config, data_dir), ids, "reject")


@articles_app.command("delete")
def delete(ids: IdsArg, config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Delete articles for good (soft delete) and queue the cleanup of their media."""
    _moderate(settings_from(config, data_dir), ids, "delete")


def register(app: typer.Typer) -> None:
    """Add ``rk articles`` to the root app."""
    app.add_typer(articles_app, name="articles")
