"""Console accounts: create, list, change password or role, disable; check a sign-in.

A moderator reviews articles; an admin also runs crawls, brands, jobs and users.
Disabling an account or changing its password ends all of its sessions.
"""

from __future__ import annotations

import re
import time
from typing import Literal, get_args

from msgspec import Struct

from rk.server.console.accounts.passwords import matches, new_hash, password_problem
from rk.server.console.accounts.repository import (
    all_users,
    delete_sessions_of,
    insert_user,
    name_taken,
    password_hash_of,
    record_sign_in,
    store_disabled_at,
    store_password_hash,
    store_role,
    user_named,
    user_with_id,
)
from rk.server.platform.http.errors import ApiError, NotFound

Role = Literal["moderator", "admin"]
ROLES: tuple[str, ...] = get_args(Role)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class UserInputError(ApiError):
    """A user name, password or role that cannot be used; ``field`` names the form field."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class UnknownUser(NotFound):
    """No account has this name."""


class User(Struct, frozen=True, kw_only=True):
    """An account as the console and CLI show it (never the hash)."""

    id: int
    username: str
    role: str
    created_at: int
    last_login_at: int
    disabled_at: int
    session_started: int = 0
    """When the session that signed it in began (0 outside a session: the shell, lists)."""

    @property
    def is_admin(self) -> bool:
        """Admins may run crawls, brands, jobs and users."""
        return self.role == "admin"


def _user(row: dict[str, object]) -> User:
    return User(
        id=int(str(row["id"])),
        username=str(row["username"]),
        role=str(row["role"]),
        created_at=int(str(row["created_at"])),
        last_login_at=int(str(row["last_login_at"])),
        disabled_at=int(str(row["disabled_at"])),
        session_started=int(str(row.get("session_started", 0))),
    )


def check_name(name: str) -> str:
    """The user name, or UserInputError: letters, digits, ``._-``, at most 64."""
    name = name.strip()
    if not name:
        raise UserInputError("the user name is empty", "username")
    if not NAME.match(name):
        raise UserInputError(
            "a user name is 1-64 letters, digits, '.', '_' or '-' (starting with a letter"
            " or digit)",
            "username",
        )
    return name


def check_role(role: str) -> Role:
    """``role`` if it is one of ROLES, else UserInputError."""
    if role not in ROLES:
        raise UserInputError(f"role must be one of {', '.join(ROLES)}, not {role!r}", "role")
    return "admin" if role == "admin" else "moderator"


def check_password(password: str, username: str) -> str:
    """``password`` if ``username`` may use it (``passwords.password_problem``), else
    UserInputError."""
    problem = password_problem(password, username)
    if problem:
        raise UserInputError(problem, "password")
    return password


async def create_user(name: str, password: str, role: str = "moderator") -> User:
    """A new account; UserInputError for a taken name or a bad password or role."""
    name, checked_role = check_name(name), check_role(role)
    check_password(password, name)
    if await name_taken(name):
        raise UserInputError(f"a user named {name!r} already exists", "username")
    await insert_user(name, await new_hash(password), checked_role, int(time.time()))
    return await get_user(name)


async def get_user(name: str) -> User:
    """The account named ``name``; UnknownUser otherwise."""
    row = await user_named(name)
    if row is None:
        raise UnknownUser(f"no user named {name!r}")
    return _user(row)


async def user_by_id(user_id: int) -> User | None:
    """The account with this id, None when there is none."""
    row = await user_with_id(user_id)
    return _user(row) if row else None


async def list_users() -> list[User]:
    """Every account, by name."""
    return [_user(row) for row in await all_users()]


async def set_password(name: str, password: str) -> User:
    """Replace the password; every session of the account ends."""
    user = await get_user(name)
    check_password(password, user.username)
    await store_password_hash(user.id, await new_hash(password), int(time.time()))
    await delete_sessions_of(user.id)
    return user


async def change_own_password(user: User, current: str, new: str) -> User:
    """``set_password`` for the account's own user, who must give the current password."""
    stored = await password_hash_of(user.id)
    if stored is None or not await matches(current, stored):
        raise UserInputError("that is not your current password", "current")
    return await set_password(user.username, new)


async def set_role(name: str, role: str) -> User:
    """Make the account a moderator or an admin."""
    user, checked = await get_user(name), check_role(role)
    await store_role(user.id, checked, int(time.time()))
    return await get_user(name)


async def set_disabled(name: str, disabled: bool = True) -> User:
    """Disable (ending its sessions) or enable an account."""
    user = await get_user(name)
    now = int(time.time())
    await store_disabled_at(user.id, now if disabled else 0, now)
    if disabled:
        await delete_sessions_of(user.id)
    return await get_user(name)


async def check_sign_in(name: str, password: str) -> User | None:
    """The account when ``password`` is right and the account enabled; None otherwise.

    An unknown name costs a hash too, so timing does not tell which names exist.
    """
    row = await user_named(name.strip(), with_hash=True)
    if row is None:
        await matches(password, await _dummy_hash())
        return None
    if not await matches(password, str(row["password_hash"])) or row["disabled_at"]:
        return None
    await record_sign_in(int(row["id"]), int(time.time()))
    return _user(row)


_DUMMY: list[str] = []


async def _dummy_hash() -> str:
    """A hash to check unknown names against (made once per process)."""
    if not _DUMMY:
        _DUMMY.append(await new_hash("not a password of anyone"))
    return _DUMMY[0]
