"""The whole system under faults (issue 16): nothing lost, duplicated or orphaned.

Run: ``pytest -m system tests/system -s`` (``--seed N`` replays a run, ``--soak MINUTES``
repeats rounds of faults for that long, ``--write-reliability`` rewrites the results block of
docs/reliability.md with this run's). Excluded from the default run by its marker.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.system.docs_results import write_results
from tests.system.harness import run_system
from tests.system.report import table

pytestmark = [pytest.mark.system, pytest.mark.timeout(3600)]
WINDOW_S = 40.0


async def test_nothing_lost_duplicated_or_orphaned(request: pytest.FixtureRequest) -> None:
    seed = request.config.getoption("--seed") or random.randrange(1, 1_000_000)
    soak_s = 60.0 * float(request.config.getoption("--soak") or 0)
    # Not pytest's tmp_path: the logs of a failed run must outlive pytest's rotation.
    root = Path(tempfile.mkdtemp(prefix=f"rk-system-{seed}-"))
    print(f"\nsystem test seed {seed} (replay: pytest -m system tests/system --seed {seed})")
    print(f"logs and configs: {root}")
    load_before = os.getloadavg()[0]
    run = await run_system(root, int(seed), WINDOW_S, soak_s)
    report = table(run)
    print(report)
    (root / "reliability.md").write_text(report + "\n", encoding="utf-8")
    if request.config.getoption("--write-reliability"):
        write_results(report, int(seed), (load_before, os.getloadavg()[0]))
    failed = [f"{c.name}: {c.detail}" for c in run.checks if not c.ok]
    assert not failed, f"seed {seed} (logs in {root}): " + "; ".join(failed)
    shutil.rmtree(root, ignore_errors=True)
