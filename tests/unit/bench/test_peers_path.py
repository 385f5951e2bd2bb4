"""The whole-path harness on one and two tiny shows: the site is crawled through real rk
processes until every image is stored, laddered, embedded and placed, and the tables are
printed from what the parts expose (issue 31). No timing is asserted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.peers import path
from bench.peers.path_fleet import bench_truth

pytestmark = pytest.mark.slow

TINY = (64, 96)


def cells(table: str, row: str) -> list[str]:
    """The cells after the label of the table row that starts with ``| row |``."""
    [line] = [line for line in table.splitlines() if line.startswith(f"| {row} |")]
    return [cell.strip() for cell in line.strip("|").split("|")[1:]]


def test_the_truth_has_one_show_per_brand_and_every_photo_served() -> None:
    truth = bench_truth(3, looks=4, details=2)
    assert len(truth.brands) == len(truth.shows) == 3
    assert sum(len(show.served()) for show in truth.archivable()) == 3 * 6
    assert not truth.missing()
    assert not truth.slow


@pytest.mark.timeout(900)  # a dozen rk processes start; on a loaded machine that is slow
async def test_every_image_goes_the_whole_path_and_the_tables_parse(tmp_path: Path) -> None:
    table = await path.run(tmp_path, [1, 2], looks=2, details=1, photo=TINY)

    assert cells(table, "images") == ["3", "6"]
    rates = [float(cell) for cell in cells(table, "images/s end to end")]
    assert len(rates) == 2
    assert all(rate > 0 for rate in rates)
    for role in ("backend", "embed worker", "PostgreSQL", "all"):
        spent = [float(cell) for cell in cells(table, f"CPU ms/image: {role}")]
        assert all(ms > 0 for ms in spent), role
    for stage in path.STAGES:
        assert all(re.fullmatch(r"-?\d+–-?\d+(, \d+ ms/img busy)?", c) for c in cells(table, stage))
    assert re.fullmatch(r"CPU per image, largest N ÷ smallest: \d+\.\d\dx", table.splitlines()[-1])
