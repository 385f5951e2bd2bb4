"""How the fault suite judges a 5xx a worker got (``tests.system.invariants``): by the work
it stood for, so a refused request for host starts counts once the crawling it paced is done."""

from __future__ import annotations

from typing import Any

from tests.system.archive_state import Snapshot
from tests.system.balancer import Exchange
from tests.system.invariants import no_unretried_5xx


def snapshot(tasks: list[dict[str, Any]]) -> Snapshot:
    """An archive holding nothing but ``tasks``."""
    return Snapshot([], [], [], tasks, {}, set(), {}, set(), set())


def exchange(path: str, status: int, body: str = "{}") -> Exchange:
    return Exchange(
        at=0.0, method="POST", path=path, body=body, status=status, upstream=0, text=body
    )


TOKENS = "/admin/internal/hosts/tokens"


def test_a_refused_request_for_host_starts_holds_once_every_task_is_done() -> None:
    log = [exchange(TOKENS, 503)]
    assert no_unretried_5xx(log, snapshot([{"id": 1, "status": "done"}]), set()).ok


def test_a_refused_request_for_host_starts_fails_while_a_task_is_not_done() -> None:
    log = [exchange(TOKENS, 503)]
    check = no_unretried_5xx(log, snapshot([{"id": 1, "status": "failed"}]), set())
    assert not check.ok
    assert f"POST {TOKENS} → 503" in check.detail


def test_any_other_call_needs_a_later_answered_call_of_the_same_path() -> None:
    path = "/admin/internal/brands"
    done = snapshot([{"id": 1, "status": "done"}])
    assert not no_unretried_5xx([exchange(path, 503)], done, set()).ok
    assert no_unretried_5xx([exchange(path, 503), exchange(path, 200)], done, set()).ok
