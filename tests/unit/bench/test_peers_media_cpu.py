"""The media pair's CPU line: rk's CPU per photo split into spider side and backend."""

from __future__ import annotations

from bench.peers.media import cpu_split
from bench.peers.media_rk import BACKEND_CPU
from bench.peers.rounds import Sample, Side


def test_the_line_splits_rk_into_spider_side_and_backend_beside_the_loop() -> None:
    rk = Side("rk", [Sample(100, 2.0, 1.5, {BACKEND_CPU: 0.004})])
    loop = Side("loop", [Sample(100, 1.0, 1.2)])
    assert cpu_split(rk, loop) == (
        "CPU ms/photo: rk file store 15.00 (spider side 11.00, backend 4.00); "
        "same-work loop 12.00; loop ÷ rk 0.80"
    )


def test_medians_are_taken_over_the_rounds() -> None:
    rounds = [Sample(10, 1.0, cpu, {BACKEND_CPU: cpu / 40}) for cpu in (0.1, 0.3, 0.2)]
    loop = Side("loop", [Sample(10, 1.0, 0.1)])
    assert cpu_split(Side("rk", rounds), loop).startswith(
        "CPU ms/photo: rk file store 20.00 (spider side 15.00, backend 5.00)"
    )
