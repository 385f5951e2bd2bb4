"""The results block of docs/reliability.md, rewritten by the fault suite's own run when asked
(``--write-reliability``): the date, the seed, the machine's load and the run's table."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

RELIABILITY_MD = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"
BEGIN = "<!-- system-run -->"
END = "<!-- /system-run -->"
BLOCK = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END), re.S)


def results_block(table: str, seed: int, load: tuple[float, float], when: datetime) -> str:
    """The marked block: when and under what load the run ran, how to replay it, its table."""
    return (
        f"{BEGIN}\n"
        f"Written by the run itself (`pytest -m system tests/system --write-reliability`) on "
        f"{when:%Y-%m-%d %H:%M} UTC, seed {seed} (replay: `--seed {seed}`), on "
        f"{os.cpu_count()} cores with load average {load[0]:.0f} at the start and "
        f"{load[1]:.0f} at the end:\n\n{table}\n{END}"
    )


def rewrite(text: str, block: str) -> str:
    """``text`` with its marked results block replaced by ``block``."""
    if not BLOCK.search(text):
        raise ValueError(f"no {BEGIN} … {END} block to rewrite")
    return BLOCK.sub(lambda _: block, text, count=1)


def write_results(
    table: str, seed: int, load: tuple[float, float], path: Path = RELIABILITY_MD
) -> None:
    """Rewrite ``path``'s results block with this run's figures (dated now, UTC)."""
    block = results_block(table, seed, load, datetime.now(UTC))
    path.write_text(rewrite(path.read_text(encoding="utf-8"), block), encoding="utf-8")
