"""One pair's table: rows rk and the peer, items/s with their spread, CPU per item, ratio."""

from __future__ import annotations

from bench.peers.rounds import Side


def _cell(value: float) -> str:
    """A rate or figure with as many decimals as its size needs."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _extra(name: str, value: float) -> str:
    """An extra figure: a recall with three decimals, anything else as ``_cell``."""
    return f"{value:.3f}" if name.startswith("recall") else _cell(value)


def render(
    title: str, rows: list[Side], peer: Side, peer_name: str, extras: tuple[str, ...] = ()
) -> str:
    """The table as Markdown, then ``ratio rk / <peer_name>: N.NNx`` for the first row.

    ``extras`` are figures each sample carries (``p50 ms``, ``recall@20``), a column each.
    """
    head = ["tool", "items/s (median)", "min–max", "CPU s/item", *extras, f"rk ÷ {peer_name}"]
    rule = "|---" + "|---:" * (len(head) - 1) + "|"
    lines = [title, "", "| " + " | ".join(head) + " |", rule]
    for side in [*rows, peer]:
        low, high = side.spread()
        cells = [
            side.label,
            _cell(side.rate()),
            f"{_cell(low)}–{_cell(high)}",
            f"{side.cpu_per_item():.2e}",
            *(_extra(name, side.extra(name)) for name in extras),
            f"{side.rate() / peer.rate():.2f}x",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    first = rows[0]
    apart = "apart" if first.apart_from(peer) else "OVERLAP"
    rounds = len(first.samples)
    lines.append("")
    lines.append(f"{rounds} rounds each, taken in turn; rk's and {peer_name}'s ranges: {apart}")
    lines.append(f"ratio rk / {peer_name}: {ratio(first, peer):.2f}x")
    return "\n".join(lines)


def ratio(rk: Side, peer: Side) -> float:
    """rk's median items/s over the peer's."""
    return rk.rate() / peer.rate()
