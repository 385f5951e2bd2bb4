"""Host budgets on both engines: starts taken by any number of spiders never come closer
than the interval, a reported Retry-After holds back every later taker, and the signed
``hosts/tokens`` route answers as docs/api.md says."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import msgspec

from rk.core.api.plugins import RkPluginManager
from rk.core.api.wire import HostTokensWanted
from rk.server.hosts import take_tokens
from rk.server.platform.db.database import Database
from tests.integration.server.helpers import backend_settings, running_backend

NOW = 1_900_000_000.0


def at(now: float) -> Callable[[], float]:
    """A clock stopped at ``now``."""
    return lambda: now


TOKENS = "/admin/internal/hosts/tokens"


def wanted(
    host: str = "www.vogue.com", want: int = 4, interval_s: float = 0.5, pause_s: float = 0
) -> HostTokensWanted:
    """A body of `POST hosts/tokens`."""
    return HostTokensWanted(host=host, want=want, interval_s=interval_s, pause_s=pause_s)


async def test_each_batch_begins_an_interval_after_the_last_start_of_the_one_before(
    db: Database,
) -> None:
    first = await take_tokens(wanted(), at(NOW))
    second = await take_tokens(wanted(), at(NOW))
    later = await take_tokens(wanted(want=1), at(NOW + 0.2))
    assert (first.granted, first.wait_s) == (4, 0.0)
    assert (second.granted, second.wait_s) == (4, 2.0)  # after 4 starts 0.5 s apart
    assert (later.granted, later.wait_s) == (1, 3.8)
    other_host = await take_tokens(wanted(host="assets.vogue.com"), at(NOW))
    assert other_host.wait_s == 0.0
    idle = await take_tokens(wanted(), at(NOW + 60))
    assert idle.wait_s == 0.0  # the schedule does not carry over a quiet spell


async def test_a_reported_retry_after_holds_back_every_later_taker(db: Database) -> None:
    await take_tokens(wanted(want=1), at(NOW))
    paused = await take_tokens(wanted(want=2, pause_s=30), at(NOW))
    behind = await take_tokens(wanted(want=1), at(NOW + 1))
    assert paused.wait_s == 30.0
    assert behind.wait_s == 30.0  # 2 starts from 30 s, 0.5 s apart, asked 1 s later


async def test_concurrent_takers_get_starts_that_never_overlap(db: Database) -> None:
    answers = await asyncio.gather(*(take_tokens(wanted(want=3), at(NOW)) for _ in range(24)))
    firsts = sorted(answer.wait_s for answer in answers)
    assert firsts == [n * 1.5 for n in range(24)]


async def test_the_signed_route_over_http(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn, workers=0)
    async with running_backend(settings, plugin_manager) as backend:
        body = msgspec.json.encode(wanted(host="127.0.0.1", want=2, interval_s=0.25))
        answer = await backend.signed("POST", TOKENS, body)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"granted": 2, "wait_s": 0.0}
        again = (await backend.signed("POST", TOKENS, body)).json()
        assert again["granted"] == 2
        assert 0.0 < again["wait_s"] <= 0.5
        unsigned = await backend.client.post(TOKENS, content=body)
        assert unsigned.status_code == 401
        for bad, words in [
            (b'{"host": "a", "want": 0, "interval_s": 1}', "want"),
            (b'{"host": "a", "want": 17, "interval_s": 1}', "want"),
            (b'{"host": "Vogue.COM", "want": 1, "interval_s": 1}', "host"),
            (b'{"host": "a", "want": 1, "interval_s": -1}', "interval_s"),
            (b'{"host": "a", "want": 1, "interval_s": 1, "extra": 1}', "extra"),
        ]:
            refused = await backend.signed("POST", TOKENS, bad)
            assert refused.status_code == 422, refused.text
            assert list(refused.json()) == ["error"]
            assert words in refused.json()["error"]
