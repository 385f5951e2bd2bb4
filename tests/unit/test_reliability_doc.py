"""docs/reliability.md's results block is the fault suite's to write (``--write-reliability``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.system.docs_results import (
    BEGIN,
    END,
    RELIABILITY_MD,
    results_block,
    rewrite,
    write_results,
)


def test_the_page_has_one_results_block() -> None:
    text = RELIABILITY_MD.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1
    assert text.count(END) == 1
    assert text.index(BEGIN) < text.index(END)


def test_the_block_carries_the_date_the_seed_and_the_table() -> None:
    when = datetime(2026, 12, 6, 3, 4, tzinfo=UTC)
    block = results_block("| a | b |", 4242, (3.2, 7.9), when)
    assert block.startswith(BEGIN)
    assert block.endswith(END)
    assert "2026-12-06 03:04 UTC" in block
    assert "seed 4242 (replay: `--seed 4242`)" in block
    assert "load average 3 at the start and 8 at the end" in block
    assert "\n| a | b |\n" in block


def test_a_run_rewrites_only_its_block(tmp_path: Path) -> None:
    page = tmp_path / "reliability.md"
    page.write_text(f"# before\n\n{BEGIN}\nold figures\n{END}\n\nafter\n")
    write_results("| new | figures |", 7, (1.0, 2.0), page)
    text = page.read_text()
    assert text.startswith("# before\n\n" + BEGIN)
    assert text.endswith(END + "\n\nafter\n")
    assert "old figures" not in text
    assert "| new | figures |" in text
    assert "seed 7" in text


def test_a_page_without_the_block_is_refused() -> None:
    with pytest.raises(ValueError, match="no <!-- system-run -->"):
        rewrite("# no markers here\n", "x")
