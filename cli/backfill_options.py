"""What the image backfills (``rk colours backfill``, ``rk tags backfill``) share: their
``--limit`` option and the check of their batch size and limit."""

from __future__ import annotations

from typing import Annotated

import typer

from rk.cli.common import fail

LimitOption = Annotated[
    int, typer.Option("--limit", help="Stop after this many images (0: all of them).")
]


def check_batch_and_limit(batch: int, most: int, limit: int) -> None:
    """Exit 2 unless ``batch`` is 1 to ``most`` and ``limit`` is 0 (no limit) or more."""
    if not 1 <= batch <= most:
        fail(f"--batch must be between 1 and {most}, not {batch}")
    if limit < 0:
        fail(f"--limit must be 0 (no limit) or more, not {limit}")
