"""The queue pair's harness on a few jobs: rk on both engines and procrastinate each take
every job (issue 31). No timing is asserted."""

from __future__ import annotations

import pytest

from bench.job_queue import postgres_db
from bench.peers import jobs
from bench.peers.jobs_procrastinate import procrastinate_round
from bench.peers.jobs_rk import rk_round
from tests.support.pg import require_postgres

pytest.importorskip("procrastinate", reason="the bench extra is not installed")
pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def admin() -> str:
    """The server the rounds make their databases on (skipped when it is not there)."""
    return require_postgres()


async def test_each_tool_completes_every_job_and_postgres_cpu_is_read(admin: str) -> None:
    # /proc counts CPU in 10 ms ticks: rk's 500 jobs at ~80 µs each span several
    ours = await rk_round(lambda: postgres_db(admin), jobs=500, workers=4)
    theirs = await procrastinate_round(admin, jobs=30, workers=4)
    assert ours.items == 500
    assert theirs.items == 30
    assert ours.extra["PG µs/job"] > 0
    assert theirs.extra["PG µs/job"] > 0


async def test_the_pair_prints_rk_on_both_engines_and_the_ratio(admin: str) -> None:
    table = await jobs.run(admin, jobs=20, workers=2, rounds=1)
    assert "| rk, PostgreSQL |" in table
    assert "| rk, SQLite (no PostgreSQL) |" in table
    assert "| procrastinate, PostgreSQL |" in table
    assert table.splitlines()[-1].startswith("ratio rk / procrastinate: ")
