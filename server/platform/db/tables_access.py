"""Who may do what: console accounts, their sessions and sign-in counters, the instance's
secrets and the replay record of signed internal requests."""

from __future__ import annotations

from piccolo.columns import BigInt, Integer, Serial, Text, Varchar
from piccolo.table import Table


class AdminUser(Table, tablename="admin_users"):
    """A console account; ``password_hash`` is a salted scrypt hash (``services.passwords``).

    role: moderator | admin. ``disabled_at`` > 0: the account can no longer sign in.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    username = Varchar(length=64, unique=True)
    password_hash = Text()
    created_at = BigInt(default=0)
    last_login_at = BigInt(default=0)
    role = Varchar(length=16, default="moderator")
    disabled_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class AdminSession(Table, tablename="admin_sessions"):
    """A signed-in browser: the sha256 of its cookie's token, valid until ``expires_at``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    token_hash = Varchar(length=64, unique=True)
    user_id = BigInt(index=True)
    created_at = BigInt(default=0)
    expires_at = BigInt(default=0)
    seen_at = BigInt(default=0)


class SignInCounter(Table, tablename="sign_in_counters"):
    """One sign-in counter (``acct:NAME|addr:IP`` or ``addr:IP``): attempts taken, when the
    next is allowed. Index (migration 0054): ``sign_in_counters_updated_at``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    key = Varchar(length=220, unique=True)
    attempts = Integer(default=0)
    next_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class InstanceSecret(Table, tablename="instance_secrets"):
    """A value drawn once for this archive (0050: ``brand_uid_alphabet``). Unique ``name``."""

    id: Serial

    name = Varchar(length=64)
    value = Text()


class SignedRequest(Table, tablename="signed_requests"):
    """A signature the internal API accepted; refused as a replay until ``expires_at``.

    Index (migration 0010): ``signed_requests_expires_at``.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    signature = Varchar(length=64, unique=True)
    expires_at = BigInt(default=0)
