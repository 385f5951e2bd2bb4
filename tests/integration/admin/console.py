"""Helpers of the console's HTTP tests: accounts, a signed-in client, the CSRF token."""

from __future__ import annotations

import re

import httpx

from rk.server.console.accounts.users import create_user

PASSWORD = "correct horse battery"
HTML = {"accept": "text/html"}
TOKEN = re.compile(r'name="_csrf_token" value="([^"]+)"')


def csrf_of(page: httpx.Response) -> str:
    """The CSRF token a console page put in its forms."""
    match = TOKEN.search(page.text)
    assert match is not None, f"no CSRF field on {page.url}"
    return match.group(1)


async def account(name: str, role: str = "admin") -> None:
    """Create an account with the shared test password."""
    await create_user(name, PASSWORD, role)


async def sign_in(client: httpx.AsyncClient, name: str, password: str = PASSWORD) -> httpx.Response:
    """Post the sign-in form as a browser would (the form first, for its CSRF token)."""
    form = await client.get("/admin/sign-in", headers=HTML)
    return await client.post(
        "/admin/sign-in",
        data={"username": name, "password": password, "_csrf_token": csrf_of(form)},
        headers=HTML,
    )


async def post_form(
    client: httpx.AsyncClient, page_path: str, action: str, data: dict[str, object]
) -> httpx.Response:
    """Open ``page_path`` for its CSRF token, then post ``data`` to ``action``."""
    page = await client.get(page_path, headers=HTML)
    assert page.status_code == 200, page.text[:300]
    return await client.post(action, data={**data, "_csrf_token": csrf_of(page)}, headers=HTML)
