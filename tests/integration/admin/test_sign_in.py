"""Signing in and out of the console, sessions in the database, CSRF, roles, rate limit."""

from __future__ import annotations

from integration.admin.console import HTML, PASSWORD, account, csrf_of, sign_in
from integration.server.helpers import Backend

from rk.server.db.tables import AdminSession, ModerationAudit


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
