"""``rk admin …`` and ``rk articles …`` against a real database, through the console script."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator

import pytest

from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import AdminUser, Article, IngestJob, ModerationAudit
from tests.support.cli import RK, rk


def with_stdin(env: dict[str, str], text: str, *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    return subprocess.run(
        [RK, *args],
        input=text,
        capture_output=True,
        text=True,
        env={**base, **env},
        timeout=60,
        check=False,
    )


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[dict[str, str]]:
    """The database under test, migrated and bound here; the env that points rk at it."""
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        yield {"RK_DATABASE": any_dsn}
    finally:
        await close(engine)


async def article(show_key: str) -> int:
    row = await Article.insert(
        Article(source="vogue", show_key=show_key, kind="runway", title=show_key)
    ).returning(Article.id)
    return int(row[0]["id"])


async def test_accounts(db: dict[str, str]) -> None:
    made = with_stdin(
        db,
        "a good password\n",
        "admin",
        "create-user",
        "ada",
        "--role",
        "admin",
        "--password-stdin",
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "created admin ada (id 1)"
    stored = await AdminUser.select(AdminUser.password_hash).first()
    assert stored is not None
    assert stored["password_hash"].startswith("scrypt$")
    assert "a good password" not in stored["password_hash"]
    listing = rk("admin", "users", env=db)
    assert "ada" in listing.stdout
    assert "admin" in listing.stdout
    assert "never signed in" in listing.stdout
    changed = with_stdin(
        db, "another password\n", "admin", "set-password", "ada", "--password-stdin"
    )
    assert changed.returncode == 0, changed.stderr
    assert rk("admin", "disable", "ada", env=db).stdout.strip() == "disabled ada"
    assert "disabled" in rk("admin", "users", env=db).stdout


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["admin", "create-user", "bo", "--password-stdin"], "short\n", "at least 8 characters"),
        (["admin", "create-user", "bo", "--password-stdin"], "12345678\n", "most common"),
        (["admin", "create-user", "bo", "--password-stdin"], "Password\n", "most common"),
        (["admin", "create-user", "bobby-t", "--password-stdin"], "BOBBY-T!\n", "user name"),
        (["admin", "create-user", "b o", "--password-stdin"], "long enough\n", "a user name is"),
        (
            ["admin", "create-user", "bo", "--role", "owner", "--password-stdin"],
            "long enough\n",
            "role must be one of",
        ),
        (["admin", "disable", "nobody"], "", "no user named 'nobody'"),
        (["admin", "set-role", "nobody", "admin"], "", "no user named 'nobody'"),
        (["articles", "publish", "424242"], "", "article 424242 does not exist"),
        (["articles", "list", "--status", "lost"], "", "--status must be one of"),
        (["articles", "list", "--brand", "Nobody"], "", "no brand 'Nobody'"),
    ],
)
async def test_bad_input_exits_2_with_one_line(
    db: dict[str, str], args: list[str], stdin: str, message: str
) -> None:
    done = with_stdin(db, stdin, *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert message in done.stderr
    assert await AdminUser.count() == 0
    assert await ModerationAudit.count() == 0


async def test_articles_list_publish_reject_delete(db: dict[str, str]) -> None:
    first, second, third = [await article(f"show/{n}") for n in (1, 2, 3)]
    listed = rk("articles", "list", env=db)
    assert [int(line.split()[0]) for line in listed.stdout.splitlines()] == [third, second, first]
    published = rk("articles", "publish", str(first), str(second), env=db)
    assert published.returncode == 0, published.stderr
    assert published.stdout.splitlines()[-1] == "Published 2 articles"
    again = rk("articles", "publish", str(first), env=db)
    assert again.stdout.splitlines()[-1] == "Published 0 articles (1 already published)"
    assert rk("articles", "reject", str(second), env=db).returncode == 0
    deleted = rk("articles", "delete", str(third), env=db)
    assert deleted.stdout.splitlines()[-1] == "Deleted 1 article"
    assert rk("articles", "list", "--status", "published", env=db).stdout.split()[0] == str(first)
    assert rk("articles", "list", "--status", "deleted", env=db).stdout.split()[0] == str(third)
    audit = await ModerationAudit.select(
        ModerationAudit.article_id,
        ModerationAudit.old_status,
        ModerationAudit.new_status,
        ModerationAudit.via,
    ).order_by(ModerationAudit.id)
    assert audit == [
        {"article_id": first, "old_status": "pending", "new_status": "published", "via": "cli"},
        {"article_id": second, "old_status": "pending", "new_status": "published", "via": "cli"},
        {"article_id": second, "old_status": "published", "new_status": "rejected", "via": "cli"},
        {"article_id": third, "old_status": "pending", "new_status": "deleted", "via": "cli"},
    ]
    assert await IngestJob.select(IngestJob.kind, IngestJob.payload) == [
        {"kind": "media_cleanup", "payload": f'{{"article_id":{third}}}'}
    ]
