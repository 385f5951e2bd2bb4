"""The thumbnail makers' harness on a few small photos: every maker runs, makes Pillow's
sizes at a sane PSNR, and the table says so (issue 31). No timing is asserted."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.peers import thumb_libs
from bench.peers.thumb_makers import LABELS, PILLOW, PYVIPS, scale_box
from bench.spider_media import write_set

pytest.importorskip("simplejpeg", reason="the bench extra is not installed")
pytest.importorskip("pyvips", reason="the bench extra is not installed")

SMALL = (640, 960)


def test_every_maker_runs_with_pillows_sizes_and_a_sane_psnr(tmp_path: Path) -> None:
    photos = list(write_set(tmp_path, "p", 3, SMALL).values())
    rows = thumb_libs.measure(photos, rounds=1, threads=2)
    assert list(rows) == list(LABELS)
    pillow = rows[PILLOW]
    assert pillow is not None
    assert pillow.sizes == [(256, 384)] * 3
    for row in rows.values():
        assert row is not None
        assert row.sizes == pillow.sizes
        assert math.isfinite(row.psnr_db)
        assert row.psnr_db > 20
        assert row.cpu() > 0
        assert row.one_thread[0] > 0
        assert row.pooled[0] > 0
        assert row.mean_bytes > 0


def test_the_table_has_a_row_a_maker_and_a_verdict(tmp_path: Path) -> None:
    table = thumb_libs.run(tmp_path, count=2, rounds=1, size=SMALL)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == [f"| {label}" for label in LABELS]
    assert table.splitlines()[-1].startswith("verdict: ")


def test_a_missing_library_is_a_row_that_says_so() -> None:
    pillow = thumb_libs.Row(PILLOW, [6.0], [150.0], [280.0], [(256, 384)], 40e3, 25.6)
    table = thumb_libs.render("makers", {PILLOW: pillow, PYVIPS: None}, threads=2)
    assert f"| {PYVIPS} | not installed |" in table
    assert table.endswith("keep Pillow")


def test_a_clear_winner_saves_a_fifth_of_the_cpu_at_pillows_quality() -> None:
    def row(label: str, cpu_ms: float, psnr: float) -> thumb_libs.Row:
        return thumb_libs.Row(label, [cpu_ms], [1.0], [1.0], [(256, 384)], 1.0, psnr)

    pillow = row(PILLOW, 6.0, 25.6)
    assert thumb_libs.wins(row("fast", 4.8, 25.3), pillow)
    assert not thumb_libs.wins(row("not fast enough", 4.9, 25.6), pillow)
    assert not thumb_libs.wins(row("worse", 3.0, 25.2), pillow)
    assert thumb_libs.verdict({PILLOW: pillow, "fast": row("fast", 4.8, 25.3)}).startswith(
        "verdict: fast clearly wins"
    )


def test_the_box_is_where_the_full_image_lies_in_a_scaled_decode() -> None:
    assert scale_box((1280, 1920), (320, 480)) == (0.0, 0.0, 320.0, 480.0)
    assert scale_box((1999, 513), (1000, 257)) == (0.0, 0.0, 999.5, 256.5)
    assert scale_box((100, 100), (33, 33)) is None
