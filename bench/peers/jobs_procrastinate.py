"""procrastinate's side of the queue pair, tuned as its documentation says for throughput.

Options set (``OPTIONS``, and the connector's pool): ``concurrency`` = the workers (16 async
no-op tasks in one worker), a psycopg pool of one connection per task plus one, so no task
waits for a connection; ``listen_notify`` off and ``wait`` off, since every job is queued
before the worker starts and it stops once it finds none; ``delete_jobs`` left at
``never``, as rk keeps its finished jobs too. Jobs are queued with ``batch_defer_async``
(one statement per ``DEFER_BATCH``), untimed.
"""

from __future__ import annotations

import time
from typing import Any

from bench.job_queue import backend_cpu_s, postgres_db
from bench.peers.rounds import Sample

DEFER_BATCH = 5000


def options(workers: int) -> dict[str, Any]:
    """``run_worker_async``'s options for this bench."""
    return {
        "concurrency": workers,
        "wait": False,
        "listen_notify": False,
        "install_signal_handlers": False,
    }


async def procrastinate_round(admin_dsn: str, jobs: int, workers: int) -> Sample:
    """``jobs`` no-op jobs through procrastinate in a fresh database on ``admin_dsn``."""
    import procrastinate

    async with postgres_db(admin_dsn) as dsn:
        connector = procrastinate.PsycopgConnector(
            conninfo=dsn, min_size=workers + 1, max_size=workers + 1
        )
        app = procrastinate.App(connector=connector)

        @app.task(name="noop")
        async def noop() -> None:
            """A job that does nothing: the queue's own cost is what is measured."""

        async with app.open_async():
            await app.schema_manager.apply_schema_async()
            for first in range(0, jobs, DEFER_BATCH):
                await noop.batch_defer_async(*({} for _ in range(min(DEFER_BATCH, jobs - first))))
            server0, client0 = await backend_cpu_s(dsn), time.process_time()
            started = time.perf_counter()
            await app.run_worker_async(**options(workers))
            seconds = time.perf_counter() - started
            client = time.process_time() - client0
            server1 = await backend_cpu_s(dsn)
            row = await connector.execute_query_one_async(
                "SELECT count(*) AS n FROM procrastinate_jobs WHERE status = 'succeeded'"
            )
    done = int(row["n"])
    if done != jobs:
        raise RuntimeError(f"procrastinate completed {done} of {jobs} jobs")
    server = sum(used - server0.get(pid, 0.0) for pid, used in server1.items())
    return Sample(done, seconds, client + server, {"PG µs/job": server / done * 1e6})
