"""The peers' tables: rounds taken in turn, the spread, the ratio line (issue 31)."""

from __future__ import annotations

from bench.peers.rounds import Round, Sample, Side, alternate
from bench.peers.table import render


def side(label: str, rates: list[float], cpu_s: float = 1.0) -> Side:
    """A row whose rounds did 100 items at each of ``rates``."""
    return Side(label, [Sample(100, 100 / rate, cpu_s, {"recall@20": 0.99}) for rate in rates])


def test_the_table_ends_with_the_ratio_of_medians() -> None:
    rk = side("rk", [200, 190, 210], cpu_s=0.5)
    peer = side("faiss", [100, 90, 110])
    lines = render("vectors", [rk], peer, "faiss", extras=("recall@20",)).splitlines()
    assert lines[0] == "vectors"
    assert lines[2] == "| tool | items/s (median) | min–max | CPU s/item | recall@20 | rk ÷ faiss |"
    assert lines[4] == "| rk | 200 | 190–210 | 5.00e-03 | 0.990 | 2.00x |"
    assert lines[5] == "| faiss | 100 | 90–110 | 1.00e-02 | 0.990 | 1.00x |"
    assert lines[-2] == "3 rounds each, taken in turn; rk's and faiss's ranges: apart"
    assert lines[-1] == "ratio rk / faiss: 2.00x"


def test_overlapping_spreads_are_called_out() -> None:
    text = render("queue", [side("rk", [100, 120, 140])], side("peer", [90, 110, 95]), "peer")
    assert "ranges: OVERLAP" in text
    assert text.endswith("ratio rk / peer: 1.26x")


async def test_rounds_alternate_between_the_tools() -> None:
    order: list[str] = []

    def round_of(name: str) -> Round:
        async def one() -> Sample:
            order.append(name)
            return Sample(1, 1.0, 1.0)

        return one

    a, b = Side("a"), Side("b")
    await alternate([(a, round_of("a")), (b, round_of("b"))], rounds=3)
    assert order == ["a", "b", "a", "b", "a", "b"]
    assert len(a.samples) == len(b.samples) == 3
