"""A new embedding space is filled beside the serving one, and the switch to it is one
setting (``vision.model``) and a restart of one backend at a time, with no failed request.

Two real ``rk serve-backend`` processes share one database and one store. The archive is
served by model A (the muddled colour model, which puts orange looks first for "red");
a second backend runs model B (the sharp one) for ``rk spider embed`` to backfill into,
while a client keeps searching through a balancer of the backends that are in rotation
(the test adds and drains them, as an operator does at a load balancer). Then the A backend
is drained, restarted with ``vision.model`` set to B and put back: every answer on the way
is a 200, A's before the switch, B's after, and B's "red" are the red looks.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import httpx
import pytest
import yaml

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import StorageContext
from tests.integration.evaluation.archive import colour_archive
from tests.integration.spider.procs import Backend, eventually
from tests.support.cli import RK
from tests.support.colour_models import MUDDLED, SHARP, build_colour_model

pytestmark = pytest.mark.slow
SECRET = "switch-test-secret-0123456789abcdef"
ROUND = re.compile(r"remaining (\d+)\)")


class Balancer:
    """A client that spreads searches over the backends in rotation and keeps every answer,
    with the phase of the switch it was sent in."""

    def __init__(self) -> None:
        self.rotation: list[str] = []
        self.phase = "start"
        self.answers: list[tuple[str, str, int, str, list[int]]] = []
        self.failures: list[str] = []
        self._turn = 0

    async def search(self, client: httpx.AsyncClient, q: str = "red") -> None:
        """One search on the next backend in rotation; (phase, url, status, model, ids) kept."""
        phase, url = self.phase, self.rotation[self._turn % len(self.rotation)]
        self._turn += 1
        try:
            answer = await client.get(f"{url}/api/search", params={"q": q, "k": 5})
        except httpx.HTTPError as exc:
            self.failures.append(f"{url}: {exc!r}")
            return
        body = answer.json()
        ids = [item["image_id"] for item in body.get("items", [])]
        self.answers.append((phase, url, answer.status_code, str(body.get("model")), ids))

    async def run(self, stop: asyncio.Event) -> None:
        """Search until ``stop`` is set."""
        async with httpx.AsyncClient(timeout=30) as client:
            while not stop.is_set():
                await self.search(client)
                await asyncio.sleep(0.02)


def backend(root: Path, dsn: str, media: Path, model: Path) -> Backend:
    """A backend on the shared database and store, running ``model``."""
    proc = Backend(root, dsn, ingest={"secret": SECRET}, vision={"model": str(model)})
    config = yaml.safe_load(proc.config.read_text())
    config["storage"] = f"file://{media}"
    proc.config.write_text(yaml.safe_dump(config))
    return proc


def switch_to(proc: Backend, model: Path) -> None:
    """The one setting of the switch: ``vision.model`` in the backend's config."""
    config = yaml.safe_load(proc.config.read_text())
    config["vision"]["model"] = str(model)
    proc.config.write_text(yaml.safe_dump(config))


async def backfill(tmp_path: Path, to: Backend, model: Path) -> list[int]:
    """``rk spider embed`` rounds of 5 against ``to`` until nothing remains; each remainder."""
    config = tmp_path / "embed.yml"
    config.write_text(
        yaml.safe_dump(
            {
                "data_dir": str(tmp_path / "embed-data"),
                "ingest": {"endpoint": to.endpoint, "secret": SECRET},
                "vision": {"model": str(model), "batch": 4},
            }
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    remaining: list[int] = []
    while not remaining or remaining[-1] > 0:
        proc = await asyncio.create_subprocess_exec(
            RK,
            *("spider", "embed", "--kind", "runway", "--limit", "5", "-c", str(config)),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode == 0, err.decode()
        found = ROUND.search(out.decode())
        assert found, out.decode()
        remaining.append(int(found.group(1)))
        assert len(remaining) < 10, remaining
    return remaining


async def test_backfill_beside_the_serving_model_then_switch_one_backend_at_a_time(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    models = tmp_path / "models"
    model_a = build_colour_model(models / "a", "rk-test/colours-muddled", MUDDLED)
    model_b = build_colour_model(models / "b", "rk-test/colours-sharp", SHARP)
    media = tmp_path / "shared-media"
    store = open_storage(
        f"file://{media}", StorageContext(backend_url="http://127.0.0.1:9"), plugin_manager
    )
    ids = await colour_archive(any_dsn, [model_a], plugin_manager, store)
    first = backend(tmp_path / "one", any_dsn, media, model_a).start()
    second = backend(tmp_path / "two", any_dsn, media, model_b).start()
    balancer, stop = Balancer(), asyncio.Event()
    balancer.rotation = [first.url]
    searching = asyncio.create_task(balancer.run(stop))
    try:
        await eventually(lambda: _answered(balancer, 1), "a first answer from backend one")
        # B is filled beside A: the second backend takes the worker's vectors, A serves
        balancer.phase = "backfill"
        remaining = await backfill(tmp_path, second, model_b)
        assert remaining[0] == 20  # 25 images, 5 a round
        assert remaining[-1] == 0
        # the switch: B's backend joins the rotation; A's is drained, restarted on B, back
        balancer.phase, balancer.rotation = "rolling", [first.url, second.url]
        await eventually(lambda: _answered(balancer, 4, "rolling"), "answers from both")
        balancer.phase, balancer.rotation = "draining", [second.url]
        await asyncio.to_thread(first.stop)
        await eventually(lambda: _answered(balancer, 3, "draining"), "answers while one is down")
        switch_to(first, model_b)
        await asyncio.to_thread(first.start)
        balancer.phase, balancer.rotation = "switched", [first.url, second.url]
        await eventually(lambda: _answered(balancer, 6, "switched"), "answers after the switch")
        # B's similar looks were placed beside A's by the backend that took B's vectors
        red = ids["red"][0]
        similar = await eventually(
            lambda: _similar(first.url, red), "B's similar looks of a red look"
        )
    finally:
        stop.set()
        await searching
        first.stop()
        second.stop()
    assert balancer.failures == []
    assert {status for _, _, status, _, _ in balancer.answers} == {200}
    phases = {phase for phase, *_ in balancer.answers}
    assert phases == {"start", "backfill", "rolling", "draining", "switched"}
    for phase, url, _, model, found in balancer.answers:
        if phase in ("start", "backfill"):  # A served, alone, while B was being filled
            assert (url, model) == (first.url, "rk-test/colours-muddled")
            assert set(found) == set(ids["orange"])  # A's mistake: orange looks for "red"
        if phase == "switched":
            assert model == "rk-test/colours-sharp", url
            assert set(found) == set(ids["red"])
    assert {url for phase, url, *_ in balancer.answers if phase == "switched"} == {
        first.url,
        second.url,
    }
    assert similar == set(ids["red"]) - {red}


async def _answered(balancer: Balancer, count: int, phase: str | None = None) -> bool:
    """Whether the balancer has ``count`` answers (of requests sent in ``phase``), or a
    failure, which ends the wait."""
    sent = [answer for answer in balancer.answers if phase in (None, answer[0])]
    return len(sent) >= count or bool(balancer.failures)


async def _similar(url: str, image_id: int) -> set[int] | None:
    """The 4 similar looks model B's lists give ``image_id``, once they are placed."""
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await client.get(f"{url}/api/images/{image_id}/similar", params={"k": 4})
    body = answer.json()
    if answer.status_code != 200 or body["model"] != "rk-test/colours-sharp":
        return None
    found = {item["image_id"] for item in body["items"]}
    return found if len(found) == 4 else None
