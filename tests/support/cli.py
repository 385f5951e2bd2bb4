"""Run the installed ``rk`` console script as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

RK = str(Path(sys.executable).with_name("rk"))


def rk(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``rk ARGS`` with captured text output; ``env`` entries are added to a clean RK_* env."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    return subprocess.run(
        [RK, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**base, **(env or {})},
        cwd=cwd,
        check=False,
    )
