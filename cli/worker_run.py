"""What the spider's long-running workers (``rk spider serve``, ``rk spider embed``) share:
their metrics options, and how they start: the metrics port first, then their loop, the
process exiting with the loop's code."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, NoReturn

import typer

from rk.cli.common import fail
from rk.core.api.errors import RkError

MetricsPortOption = Annotated[
    int | None,
    typer.Option("--metrics-port", help="Serve Prometheus metrics of this process on this port."),
]
MetricsHostOption = Annotated[
    str,
    typer.Option("--metrics-host", help="Address the metrics port listens on."),
]
Loop = Callable[[], Coroutine[Any, Any, int]]
"""A worker's loop, started inside ``run_worker``; it returns the process's exit code."""


def run_worker(main: Loop, port: int | None, host: str) -> NoReturn:
    """Serve this worker's metrics when ``--metrics-port`` was given (exit 2 if it cannot),
    then run ``main`` and exit with the code it returns."""
    if port is not None:
        from rk.core.runtime.worker_metrics import serve_metrics

        try:
            serve_metrics(port, host)
        except RkError as exc:
            fail(str(exc))
    raise typer.Exit(asyncio.run(main()))
