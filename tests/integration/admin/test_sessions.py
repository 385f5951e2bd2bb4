"""Console sessions: a new one at each sign-in (no fixation), password changes end them,
idle ones end."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from rk.core.api.plugins import RkPluginManager
from rk.server.console.accounts.users import check_sign_in
from rk.server.platform.db.tables import AdminSession
from tests.integration.admin.console import HTML, PASSWORD, account, csrf_of, post_form, sign_in
from tests.integration.server.helpers import Backend, backend_settings, running_backend

NEW_PASSWORD = "a brand new passphrase"


@asynccontextmanager
async def browser(console: Backend) -> AsyncIterator[httpx.AsyncClient]:
    """Another browser: a client with a cookie jar of its own."""
    async with httpx.AsyncClient(base_url=console.url, timeout=30) as client:
        yield client


async def signed_in(client: httpx.AsyncClient) -> bool:
    """Whether ``client``'s cookie opens the console (200) or is sent to sign in (303)."""
    answer = await client.get("/admin", headers=HTML)
    assert answer.status_code in (200, 303), answer.text[:300]
    return answer.status_code == 200


async def test_each_sign_in_opens_a_new_session_and_ends_the_old(console: Backend) -> None:
    await account("ada")
    await account("mallory", "moderator")
    assert (await sign_in(console.client, "mallory")).status_code == 303
    planted = console.client.cookies["rk_session"]
    token = csrf_of(await console.client.get("/admin", headers=HTML))
    data = {"username": "ada", "password": PASSWORD, "_csrf_token": token}
    answer = await console.client.post("/admin/sign-in", data=data, headers=HTML)
    assert answer.status_code == 303, answer.text[:300]
    fresh = console.client.cookies["rk_session"]
    assert fresh != planted
    assert "Signed in as ada" in (await console.client.get("/admin", headers=HTML)).text
    assert await AdminSession.count() == 1
    async with browser(console) as other:
        other.cookies.set("rk_session", planted)
        assert not await signed_in(other)


async def test_a_cookie_planted_before_sign_in_is_not_upgraded(console: Backend) -> None:
    await account("ada")
    await console.client.get("/admin/sign-in", headers=HTML)
    csrf_cookie = console.client.cookies["rk_csrf"]
    planted = {**HTML, "cookie": f"rk_session=chosen-by-an-attacker; rk_csrf={csrf_cookie}"}
    form = await console.client.get("/admin/sign-in", headers=planted)
    assert form.status_code == 200
    data = {"username": "ada", "password": PASSWORD, "_csrf_token": csrf_of(form)}
    answer = await console.client.post("/admin/sign-in", data=data, headers=planted)
    assert answer.status_code == 303, answer.text[:300]
    assert "rk_session=" in answer.headers["set-cookie"]
    assert "chosen-by-an-attacker" not in answer.headers["set-cookie"]
    console.client.cookies.clear()
    refused = await console.client.get("/admin", headers=planted)
    assert refused.status_code == 303


async def test_changing_your_password_ends_your_other_sessions(console: Backend) -> None:
    await account("ada")
    async with browser(console) as laptop:
        assert (await sign_in(console.client, "ada")).status_code == 303
        assert (await sign_in(laptop, "ada")).status_code == 303
        before = console.client.cookies["rk_session"]
        data = {"current": PASSWORD, "password": NEW_PASSWORD}
        answer = await post_form(console.client, "/admin/account", "/admin/account/password", data)
        assert answer.status_code == 303, answer.text[:300]
        assert console.client.cookies["rk_session"] != before
        assert await signed_in(console.client)
        assert not await signed_in(laptop)
        assert await AdminSession.count() == 1
        assert (await sign_in(laptop, "ada", PASSWORD)).status_code == 401
        assert (await sign_in(laptop, "ada", NEW_PASSWORD)).status_code == 303


async def test_a_wrong_current_or_weak_new_password_changes_nothing(console: Backend) -> None:
    await account("ada")
    async with browser(console) as laptop:
        await sign_in(console.client, "ada")
        await sign_in(laptop, "ada")
        cases = [
            ({"current": "not my password", "password": NEW_PASSWORD}, "not your current password"),
            ({"current": PASSWORD, "password": "password1"}, "10,000 most common"),
            ({"current": PASSWORD, "password": "Ada"}, "at least 8 characters"),
        ]
        for data, words in cases:
            page = "/admin/account"
            answer = await post_form(console.client, page, "/admin/account/password", data)
            assert answer.status_code == 422
            assert words in answer.text
        assert await signed_in(laptop)
        assert await AdminSession.count() == 2


async def test_an_admin_setting_a_password_ends_that_accounts_sessions(console: Backend) -> None:
    await account("root")
    await account("mo", "moderator")
    async with browser(console) as moderator:
        await sign_in(console.client, "root")
        await sign_in(moderator, "mo")
        weak = await post_form(
            console.client, "/admin/users", "/admin/users/mo/password", {"password": "12345678"}
        )
        assert weak.status_code == 422
        assert "10,000 most common" in weak.text
        assert await signed_in(moderator)
        own = await post_form(
            console.client, "/admin/users", "/admin/users/root/password", {"password": NEW_PASSWORD}
        )
        assert own.status_code == 409
        answer = await post_form(
            console.client, "/admin/users", "/admin/users/mo/password", {"password": NEW_PASSWORD}
        )
        assert answer.status_code == 303, answer.text[:300]
        assert not await signed_in(moderator)
        assert await signed_in(console.client)
        assert (await sign_in(moderator, "mo", NEW_PASSWORD)).status_code == 303


async def seen_at() -> int:
    """The one session's last recorded use."""
    row = await AdminSession.select(AdminSession.seen_at).first()
    assert row is not None
    return int(row["seen_at"])


async def test_an_idle_session_ends_and_use_is_written_once_a_minute(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    settings.admin.session_idle_s = 120
    async with running_backend(settings, plugin_manager) as b:
        await account("ada")
        await sign_in(b.client, "ada")
        recent = int(time.time()) - 30
        await AdminSession.update({AdminSession.seen_at: recent}).where(AdminSession.id > 0)
        assert await signed_in(b.client)
        assert await seen_at() == recent  # used within the minute: nothing written
        stale = int(time.time()) - 90
        await AdminSession.update({AdminSession.seen_at: stale}).where(AdminSession.id > 0)
        assert await signed_in(b.client)
        assert await seen_at() > stale  # used after a minute: written, so still live
        idle = int(time.time()) - 121
        await AdminSession.update({AdminSession.seen_at: idle}).where(AdminSession.id > 0)
        assert not await signed_in(b.client)
        async with browser(b) as other:
            assert (await sign_in(other, "ada")).status_code == 303
        assert await AdminSession.count() == 1  # the idle one was swept at that sign-in


async def sign_out(client: httpx.AsyncClient, token: str) -> int:
    """Post the sign-out form with ``token``; the status."""
    answer = await client.post("/admin/sign-out", data={"_csrf_token": token}, headers=HTML)
    return answer.status_code


async def test_a_csrf_token_only_works_in_its_own_session(console: Backend) -> None:
    await account("ada")
    async with browser(console) as other:
        early = csrf_of(await other.get("/admin/sign-in", headers=HTML))
        await sign_in(console.client, "ada")
        await sign_in(other, "ada")
        theirs = csrf_of(await console.client.get("/admin", headers=HTML))
        assert await sign_out(other, theirs) == 403
        other.cookies.set("rk_csrf", console.client.cookies["rk_csrf"])  # even with its cookie
        assert await sign_out(other, theirs) == 403
        assert await sign_out(other, early) == 403  # from before the sign-in that rotated it
        header = {**HTML, "x-csrf-token": theirs}
        assert (await other.post("/admin/sign-out", headers=header)).status_code == 403
        assert await signed_in(other)
        own = csrf_of(await other.get("/admin", headers=HTML))
        assert await sign_out(other, own) == 303
        assert not await signed_in(other)
        assert await signed_in(console.client)


async def test_guessing_the_current_password_takes_sign_in_slots(console: Backend) -> None:
    """A stolen session cannot guess its owner's password faster than the sign-in page allows:
    the check shares the sign-in limit's counters, and a right current password (even with a
    refused new one) gives the slots back."""
    await account("ada")
    await sign_in(console.client, "ada")
    page, action = "/admin/account", "/admin/account/password"
    wrong = {"current": "not my password", "password": NEW_PASSWORD}
    for _ in range(4):
        assert (await post_form(console.client, page, action, wrong)).status_code == 422
    weak = {"current": PASSWORD, "password": "password1"}
    assert (await post_form(console.client, page, action, weak)).status_code == 422
    for _ in range(5):
        assert (await post_form(console.client, page, action, wrong)).status_code == 422
    right = {"current": PASSWORD, "password": NEW_PASSWORD}
    refused = await post_form(console.client, page, action, right)
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0
    assert "Too many failed attempts" in refused.text
    async with browser(console) as laptop:
        assert (await sign_in(laptop, "ada", PASSWORD)).status_code == 429
    assert await check_sign_in("ada", PASSWORD) is not None
    assert await check_sign_in("ada", NEW_PASSWORD) is None
