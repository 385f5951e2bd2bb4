"""The signed-ingest capacity benchmark runs end to end on a tiny load (issue 31, item 5)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TINY = ("--spiders", "2", "--seconds", "0.5", "--rounds", "2")


def test_capacity_runs_a_real_backend_and_prints_its_table() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.ingest_api", *TINY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = re.findall(r"^\| (\d) \| ([\d,.]+) \| ([\d,.]+) \| .* \| (\d+) \|$", done.stdout, re.M)
    assert [row[0] for row in rows] == ["1", "2"]
    for _, rate, cpu_us, errors in rows:
        assert float(rate.replace(",", "")) > 0  # shows were accepted
        assert float(cpu_us.replace(",", "")) > 0  # and the backend's CPU was read
        assert errors == "0"
    assert re.search(r"one core serves [\d,]+ spiders$", done.stdout.strip())
