"""``rk admin create-user|users|set-password|set-role|disable|enable``: console accounts.

Passwords are prompted twice (hidden), or read from stdin with ``--password-stdin`` (one
line) for scripts. A bad name, role or password (too short or long, one of the 10,000 most
common, the user name) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, fail, settings_from
from rk.cli.db_session import run_with_db
from rk.core.api.errors import RkError

admin_app = typer.Typer(help="Accounts of the moderation console.", no_args_is_help=True)

NameArg = Annotated[str, typer.Argument(help="The account's user name.")]
StdinOption = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from stdin (one line).")
]


def read_password(from_stdin: bool, name: str) -> str:
    """``name``'s new password: stdin's first line, or prompted twice; exit 2 when unusable."""
    from rk.server.console.accounts.passwords import password_problem

    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    problem = password_problem(password, name)
    if problem:
        fail(problem)
    return password


def _check_name(name: str) -> None:
    from rk.server.console.accounts.users import check_name

    try:
        check_name(name)
    except RkError as exc:
        fail(str(exc))


@admin_app.command("create-user")
def create_user(
    name: NameArg,
    role: Annotated[str, typer.Option("--role", help="moderator or admin.")] = "moderator",
    password_stdin: StdinOption = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Create an account (a moderator reviews articles; an admin runs everything)."""
    from rk.server.console.accounts.users import check_role
    from rk.server.console.accounts.users import create_user as create

    _check_name(name)
    try:
        check_role(role)
    except RkError as exc:
        fail(str(exc))
    password = read_password(password_stdin, name)
    settings = settings_from(config, data_dir)
    user = run_with_db(settings, lambda: create(name, password, role))
    typer.echo(f"created {user.role} {user.username} (id {user.id})")


@admin_app.command("users")
def users(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """List the accounts: name, role, state, last sign-in."""
    from rk.server.console.accounts.users import list_users
    from rk.server.platform.web.templating import exact_time

    settings = settings_from(config, data_dir)
    found = run_with_db(settings, list_users)
    if not found:
        typer.echo("no accounts yet: rk admin create-user NAME --role admin")
    for user in found:
        state = "disabled" if user.disabled_at else "active"
        last = exact_time(user.last_login_at) or "never signed in"
        typer.echo(f"{user.id:>4}  {user.username:<20}  {user.role:<9}  {state:<8}  {last}")


@admin_app.command("set-password")
def set_password(
    name: NameArg,
    password_stdin: StdinOption = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Replace an account's password (its sessions end)."""
    from rk.server.console.accounts.users import set_password as change

    _check_name(name)
    password = read_password(password_stdin, name)
    settings = settings_from(config, data_dir)
    user = run_with_db(settings, lambda: change(name, password))
    typer.echo(f"password changed for {user.username}; signed out everywhere")


@admin_app.command("set-role")
def set_role(
    name: NameArg,
    role: Annotated[str, typer.Argument(help="moderator or admin.")],
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Make an account a moderator or an admin."""
    from rk.server.console.accounts.users import set_role as change

    settings = settings_from(config, data_dir)
    user = run_with_db(settings, lambda: change(name, role))
    typer.echo(f"{user.username} is now {user.role}")


@admin_app.command("disable")
def disable(name: NameArg, config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Stop an account from signing in (its sessions end at once)."""
    from rk.server.console.accounts.users import set_disabled

    settings = settings_from(config, data_dir)
    user = run_with_db(settings, lambda: set_disabled(name, True))
    typer.echo(f"disabled {user.username}")


@admin_app.command("enable")
def enable(name: NameArg, config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Let a disabled account sign in again."""
    from rk.server.console.accounts.users import set_disabled

    settings = settings_from(config, data_dir)
    user = run_with_db(settings, lambda: set_disabled(name, False))
    typer.echo(f"enabled {user.username}")


def register(app: typer.Typer) -> None:
    """Add ``rk admin`` to the root app."""
    app.add_typer(admin_app, name="admin")
