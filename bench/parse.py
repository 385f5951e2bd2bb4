"""Vogue show-page parsing speed: rk's parse path against msgspec reading its state, keeping none.

Rows, on the same 60-look show page with 24 detail shots (the synthetic site's
``fall-2031-ready-to-wear/maison-aurele``, ~200 KB), in the same run:

- ``msgspec, keep nothing (floor)``: ``msgspec.json.decode`` of the exact
  ``__PRELOADED_STATE__`` text, already cut out of the page, into a Struct with no fields:
  the same decoder as rk's reads and validates every byte and builds nothing (any parser of
  this state must at least do that; rk's typed decode skips what it does not need, which is
  why it beats an untyped decode into dicts);
- ``msgspec untyped``: the same text into plain dicts and lists, for reference;
- ``orjson``: the same, when orjson is installed;
- ``json.loads``: the standard library on the same text, for reference;
- ``rk decode_state``: find the marker in the page and decode the state into rk's Structs;
- ``rk parse_show``: the whole page → ``ShowIngest`` (marker, decode, looks, details, meta).

Each row is timed in rounds of ``--seconds``; the best round counts.

    .venv/bin/python -m bench.parse [--seconds 0.5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from rk.plugins.vogue.parse import parse_show
from rk.plugins.vogue.state import ShowState, decode_state, state_text

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "tests/sites/vogue/fashion-shows/fall-2031-ready-to-wear/maison-aurele.html"
URL = "https://www.vogue.com/fashion-shows/fall-2031-ready-to-wear/maison-aurele"
FLOOR = "msgspec, keep nothing (floor)"


class Nothing(msgspec.Struct):
    """A JSON object of which nothing is kept: decoding into it only reads and validates."""


def per_call_s(call: Callable[[], object], seconds: float, rounds: int) -> float:
    """Best mean seconds per call over ``rounds`` rounds of about ``seconds`` each."""
    best = float("inf")
    for _ in range(rounds):
        count = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(10):
                call()
            count += 10
        best = min(best, elapsed / count)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per row; best counts")
    args = parser.parse_args()

    html = PAGE.read_text(encoding="utf-8").replace("{{BASE}}", "https://assets.vogue.com")
    blob = state_text(html, URL)
    show = parse_show(html, URL).show
    print(
        f"page {len(html) / 1024:.0f} KB, state {len(blob) / 1024:.0f} KB, "
        f"{len(show.looks)} looks, {len(show.details)} details"
    )
    rows: dict[str, Callable[[], object]] = {
        FLOOR: lambda: msgspec.json.decode(blob, type=Nothing),
        "msgspec untyped": lambda: msgspec.json.decode(blob),
    }
    try:
        orjson = importlib.import_module("orjson")
        rows["orjson"] = lambda: orjson.loads(blob)
    except ImportError:
        pass
    rows |= {
        "json.loads": lambda: json.loads(blob),
        "rk decode_state": lambda: decode_state(html, URL, ShowState),
        "rk parse_show": lambda: parse_show(html, URL),
    }
    timings = {name: per_call_s(call, args.seconds, args.rounds) for name, call in rows.items()}
    floor = timings[FLOOR]
    print(f"\n{'row':<30} {'pages/s':>9} {'µs/page':>9} {'ratio':>7}")
    for name, seconds in timings.items():
        print(f"{name:<30} {1 / seconds:>9.0f} {seconds * 1e6:>9.0f} {seconds / floor:>6.2f}x")


if __name__ == "__main__":
    main()
