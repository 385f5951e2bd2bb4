"""``rk db migrate``: bring the configured database up to date."""

from __future__ import annotations

import asyncio
import sqlite3

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.core.api.errors import RkError

db_app = typer.Typer(help="Manage the database.", no_args_is_help=True)


@db_app.command("migrate")
def migrate_command(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Apply every pending migration; prints one line per migration applied."""
    import asyncpg

    from rk.server.platform.db.engine import redact_dsn
    from rk.server.platform.db.migrate import migrate

    settings = settings_from(config, data_dir)
    dsn = settings.database_url
    shown = redact_dsn(dsn)
    try:
        applied = asyncio.run(migrate(dsn))
    except RkError as exc:
        fail(str(exc))
    except (OSError, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        fail(f"cannot migrate {shown}: {detail}")
    for migration_id in applied:
        typer.echo(f"applied {migration_id}")
    if applied:
        typer.echo(f"database migrated: {shown} ({len(applied)} applied)")
    else:
        typer.echo(f"database is up to date: {shown}")


def register(app: typer.Typer) -> None:
    """Add ``rk db`` to the root app."""
    app.add_typer(db_app, name="db")
