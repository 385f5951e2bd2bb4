"""Signing in and out of the console, sessions in the database, CSRF, roles, rate limit."""

from __future__ import annotations

from pathlib import Path

from rk.core.api.plugins import RkPluginManager
from rk.server.console.accounts.users import set_disabled
from rk.server.platform.db.tables import AdminSession, ModerationAudit
from tests.integration.admin.console import HTML, PASSWORD, account, csrf_of, sign_in
from tests.integration.server.helpers import Backend, backend_settings, running_backend


async def test_signed_out_is_sent_to_sign_in(console: Backend) -> None:
    for path in ("/admin", "/admin/articles?tab=rejected", "/admin/articles/1"):
        answer = await console.client.get(path, headers=HTML)
        assert answer.status_code == 303
        assert answer.headers["location"].startswith("/admin/sign-in?next=/admin")


async def test_sign_in_session_and_sign_out(console: Backend) -> None:
    await account("ada")
    answer = await sign_in(console.client, "ada")
    assert answer.status_code == 303, answer.text[:300]
    assert answer.headers["location"] == "/admin"
    cookie = answer.headers["set-cookie"]
    assert "rk_session=" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain http without an https public_url
    assert await AdminSession.count() == 1
    home = await console.client.get("/admin", headers=HTML)
    assert home.status_code == 200
    assert "Dashboard" in home.text
    out = await console.client.post(
        "/admin/sign-out", data={"_csrf_token": csrf_of(home)}, headers=HTML
    )
    assert out.status_code == 303
    assert await AdminSession.count() == 0
    again = await console.client.get("/admin", headers=HTML)
    assert again.status_code == 303


async def test_wrong_password_then_rate_limited(console: Backend) -> None:
    await account("bo")
    for _ in range(5):
        refused = await sign_in(console.client, "bo", "wrong password!")
        assert refused.status_code == 401
        assert "Wrong user name or password." in refused.text
    limited = await sign_in(console.client, "bo", PASSWORD)
    assert limited.status_code == 429
    assert "Too many failed attempts. Try again in" in limited.text
    assert int(limited.headers["retry-after"]) > 0
    assert await AdminSession.count() == 0


async def test_post_without_csrf_is_refused(console: Backend) -> None:
    await account("cy")
    await sign_in(console.client, "cy")
    answer = await console.client.post("/admin/articles/1/publish", data={}, headers=HTML)
    assert answer.status_code == 403
    assert await ModerationAudit.count() == 0
    forged = await console.client.post(
        "/admin/articles/1/publish", data={"_csrf_token": "x" * 128}, headers=HTML
    )
    assert forged.status_code == 403


async def test_session_survives_restart_and_spans_processes(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    first = backend_settings(tmp_path, database=any_dsn)
    async with running_backend(first, plugin_manager) as one:
        await account("ada")
        assert (await sign_in(one.client, "ada")).status_code == 303
        cookies = dict(one.client.cookies)
        other = backend_settings(tmp_path, database=any_dsn)
        async with running_backend(other, plugin_manager) as two:
            two.client.cookies.update(cookies)
            page = await two.client.get("/admin", headers=HTML)
            assert page.status_code == 200
            assert "Signed in as ada" in page.text
    restarted = backend_settings(tmp_path, database=any_dsn)
    async with running_backend(restarted, plugin_manager) as three:
        three.client.cookies.update(cookies)
        assert (await three.client.get("/admin", headers=HTML)).status_code == 200
        await AdminSession.update({AdminSession.expires_at: 1}).where(AdminSession.id > 0)
        expired = await three.client.get("/admin", headers=HTML)
        assert expired.status_code == 303


async def test_cookie_is_secure_behind_https(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    settings.server.public_url = "https://rk.example.org"
    async with running_backend(settings, plugin_manager) as b:
        await account("ada")
        form = await b.client.get("/admin/sign-in", headers=HTML)
        csrf_cookie = form.headers["set-cookie"]
        assert "rk_csrf=" in csrf_cookie
        assert "Secure" in csrf_cookie
        value = csrf_cookie.split(";", 1)[0]
        b.client.cookies.clear()
        answer = await b.client.post(
            "/admin/sign-in",
            data={"username": "ada", "password": PASSWORD, "_csrf_token": csrf_of(form)},
            headers={**HTML, "cookie": value},
        )
        assert answer.status_code == 303, answer.text[:500]
        assert "rk_session=" in answer.headers["set-cookie"]
        assert "Secure" in answer.headers["set-cookie"]


async def test_address_limit_covers_every_account(console: Backend) -> None:
    for n in range(20):
        refused = await sign_in(console.client, f"ghost{n}", "not the password")
        assert refused.status_code == 401
    await account("real")
    limited = await sign_in(console.client, "real")
    assert limited.status_code == 429
    assert await AdminSession.count() == 0


async def test_disabled_account_is_signed_out(console: Backend) -> None:
    await account("ada")
    await sign_in(console.client, "ada")
    await set_disabled("ada")
    assert (await console.client.get("/admin", headers=HTML)).status_code == 303
    refused = await sign_in(console.client, "ada")
    assert refused.status_code == 401
