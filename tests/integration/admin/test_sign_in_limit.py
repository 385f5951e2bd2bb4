"""The sign-in limit over real HTTP: slots taken before the check, per (account, address)."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from pathlib import Path

import httpx
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import AdminSession
from tests.integration.admin.console import HTML, PASSWORD, account, csrf_of
from tests.integration.server.helpers import Backend, backend_settings, running_backend

WRONG = "not the password"


async def attempt(
    client: httpx.AsyncClient, token: str, name: str, password: str, via: str = ""
) -> httpx.Response:
    """One sign-in post with an already fetched CSRF token (``via``: X-Forwarded-For)."""
    headers = {**HTML, **({"x-forwarded-for": via} if via else {})}
    data = {"username": name, "password": password, "_csrf_token": token}
    return await client.post("/admin/sign-in", data=data, headers=headers)


async def form_token(client: httpx.AsyncClient) -> str:
    """The sign-in form's CSRF token (its cookie stays in ``client``)."""
    return csrf_of(await client.get("/admin/sign-in", headers=HTML))


class Clock:
    """The backend's clock, moved by the test."""

    def __init__(self, now: int = 1_900_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


async def test_a_burst_checks_at_most_the_limit(console: Backend) -> None:
    await account("ada")
    token = await form_token(console.client)
    answers = await asyncio.gather(
        *(attempt(console.client, token, "ada", WRONG) for _ in range(40))
    )
    statuses = Counter(answer.status_code for answer in answers)
    limit = console.settings.admin.sign_in_max_failures
    assert set(statuses) <= {401, 429}, statuses
    assert 1 <= statuses[401] <= limit, statuses
    assert statuses[429] == 40 - statuses[401]


async def test_right_password_from_another_address_signs_in_during_an_attack(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    settings.server.trusted_proxies = ["127.0.0.1"]
    async with running_backend(settings, plugin_manager) as b:
        await account("ada")
        token = await form_token(b.client)
        for via in ("203.0.113.1", "203.0.113.2"):
            answers = [await attempt(b.client, token, "ada", WRONG, via) for _ in range(8)]
            assert [a.status_code for a in answers] == [401] * 5 + [429] * 3
            locked = await attempt(b.client, token, "ada", PASSWORD, via)
            assert locked.status_code == 429
        signed_in = await attempt(b.client, token, "ada", PASSWORD, "203.0.113.3")
        assert signed_in.status_code == 303, signed_in.text[:300]
        assert "rk_session=" in signed_in.headers["set-cookie"]
        assert await AdminSession.count() == 1


async def test_delays_double_after_the_free_attempts(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    async with running_backend(settings, plugin_manager) as b:
        clock = Clock()
        b.app.state.clock = clock
        await account("ada")
        token = await form_token(b.client)
        for _ in range(5):
            assert (await attempt(b.client, token, "ada", WRONG)).status_code == 401
        waits = []
        for _ in range(7):
            refused = await attempt(b.client, token, "ada", WRONG)
            assert refused.status_code == 429
            waits.append(int(refused.headers["retry-after"]))
            clock.now += waits[-1]
            assert (await attempt(b.client, token, "ada", WRONG)).status_code == 401
        assert waits == [30, 60, 120, 240, 480, 900, 900]
        locked = await attempt(b.client, token, "ada", PASSWORD)
        assert locked.status_code == 429
        clock.now += int(locked.headers["retry-after"])
        assert (await attempt(b.client, token, "ada", PASSWORD)).status_code == 303
        b.client.cookies.delete("rk_session")  # signed out: the sign-in form's token holds again
        again = await attempt(b.client, token, "ada", WRONG)
        assert again.status_code == 401  # the correct password forgot the counter


async def test_forged_forwarded_for_is_ignored_without_trusted_proxies(
    console: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    await account("ada")
    token = await form_token(console.client)
    caplog.set_level(logging.INFO, logger="rk.server.console")
    for n in range(5):
        refused = await attempt(console.client, token, "ada", WRONG, f"198.51.100.{n}")
        assert refused.status_code == 401
    limited = await attempt(console.client, token, "ada", PASSWORD, "198.51.100.99")
    assert limited.status_code == 429
    logged = [r.getMessage() for r in caplog.records if r.name == "rk.server.console"]
    assert len(logged) == 6
    assert all("from 127.0.0.1" in line for line in logged), logged
    assert not any("198.51.100" in line for line in logged)


async def test_forwarded_for_names_the_client_behind_a_trusted_proxy(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    settings.server.trusted_proxies = ["127.0.0.0/8"]
    async with running_backend(settings, plugin_manager) as b:
        await account("ada")
        token = await form_token(b.client)
        caplog.set_level(logging.INFO, logger="rk.server.console")
        refused = await attempt(b.client, token, "ada", WRONG, "198.51.100.7")
        assert refused.status_code == 401
        logged = [r.getMessage() for r in caplog.records if r.name == "rk.server.console"]
        assert logged == ["wrong password for 'ada' from 198.51.100.7"]


ATTACKERS = [f"198.51.100.{n}" for n in range(1, 21)]


async def attack_then_sign_in(b: Backend) -> tuple[Counter[int], httpx.Response]:
    """10 wrong passwords for ada from each of 20 addresses (200 in all), then the right one
    from an address that has not failed: the statuses of the attack, the last answer."""
    token = await form_token(b.client)
    statuses: Counter[int] = Counter()
    for via in ATTACKERS:
        for _ in range(10):
            statuses[(await attempt(b.client, token, "ada", WRONG, via)).status_code] += 1
    return statuses, await attempt(b.client, token, "ada", PASSWORD, "203.0.113.50")


async def test_right_password_signs_in_after_200_wrong_ones_from_20_addresses(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn)
    settings.server.trusted_proxies = ["127.0.0.1"]
    async with running_backend(settings, plugin_manager) as b:
        await account("ada")
        statuses, signed_in = await attack_then_sign_in(b)
        limit = settings.admin.sign_in_max_failures
        assert statuses == Counter({401: 20 * limit, 429: 20 * (10 - limit)})
        assert signed_in.status_code == 303, signed_in.text[:300]
        assert "rk_session=" in signed_in.headers["set-cookie"]
        assert await AdminSession.count() == 1
