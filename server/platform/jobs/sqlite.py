"""The SQLite ingest-queue backend: every write is one ``BEGIN IMMEDIATE`` transaction.

SQLite has one writer at a time, so a claim (select the lowest claimable id, then mark it)
inside an immediate transaction cannot interleave with another claim, in this process or
any other sharing the file. Only SQL here; the policy is in ``engine.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import ClassVar

from rk.core.api.queues import ClaimsInBatches, Job, SignedJob, job_from_row
from rk.server.platform.db.sqlite_database import SqliteDatabase

JOB_COLUMNS = "id, kind, payload, attempts, brand_id"

SQL = {
    "enqueue": """
        INSERT INTO ingest_jobs (kind, status, attempts, payload, last_error, outcome, note,
                                 brand_id, locked_at, next_attempt_at, created_at, updated_at)
        VALUES (:kind, 'pending', 0, :payload, '', '', '', :brand_id, 0, :now, :now, :now)
        RETURNING id""",
    "record_signature": """
        INSERT INTO signed_requests (signature, expires_at) VALUES (:signature, :expires_at)
        ON CONFLICT (signature) DO NOTHING
        RETURNING id""",
    # Same order as PostgreSQL: the earlier-due of the oldest stuck job (due at locked_at
    # + stuck timeout) and the oldest due pending job, on ingest_jobs_leased_idx and _due_idx.
    "claim": f"""
        UPDATE ingest_jobs
        SET status = 'processing', attempts = attempts + 1, locked_at = :now, updated_at = :now
        WHERE id = (
            SELECT id FROM (
                SELECT * FROM (
                    SELECT id, locked_at + (:now - :stuck_before) AS due FROM ingest_jobs
                    WHERE status = 'processing' AND locked_at < :stuck_before
                      AND attempts < :max_attempts
                    ORDER BY locked_at, id
                    LIMIT 1)
                UNION ALL
                SELECT * FROM (
                    SELECT id, next_attempt_at AS due FROM ingest_jobs
                    WHERE status = 'pending' AND next_attempt_at <= :now
                    ORDER BY next_attempt_at, id
                    LIMIT 1))
            ORDER BY due, id
            LIMIT 1)
        RETURNING {JOB_COLUMNS}""",
    "lost": f"""
        SELECT {JOB_COLUMNS} FROM ingest_jobs
        WHERE status = 'processing' AND locked_at < :stuck_before AND attempts >= :max_attempts
        ORDER BY id
        LIMIT :limit""",
    "complete": """
        UPDATE ingest_jobs SET status = 'done', outcome = :outcome, note = :note, updated_at = :now
        WHERE id = :id AND status = 'processing' AND attempts = :attempts""",
    "retry": """
        UPDATE ingest_jobs
        SET status = 'pending', last_error = :error, next_attempt_at = :next_attempt_at,
            updated_at = :now
        WHERE id = :id AND status = 'processing' AND attempts = :attempts""",
    "fail": """
        UPDATE ingest_jobs SET status = 'failed', last_error = :error, updated_at = :now
        WHERE id = :id AND status = 'processing' AND attempts = :attempts""",
    "renew": """
        UPDATE ingest_jobs SET locked_at = :now, updated_at = :now
        WHERE id = :id AND status = 'processing' AND attempts = :attempts""",
    "release": """
        UPDATE ingest_jobs
        SET status = 'pending', attempts = attempts - 1, locked_at = 0, updated_at = :now
        WHERE id = :id AND status = 'processing' AND attempts = :attempts""",
}


class SqliteQueue(ClaimsInBatches):
    """``ingest_jobs`` in one SQLite file; safe across threads and processes sharing it."""

    schemes: ClassVar[tuple[str, ...]] = ("sqlite",)

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        self._wake: list[Callable[[], None]] = []

    async def _update(self, name: str, **params: object) -> bool:
        def run(conn: sqlite3.Connection) -> bool:
            return conn.execute(SQL[name], params).rowcount > 0

        return await self._db.write(run)

    async def enqueue(self, kind: str, payload: str, brand_id: int, now: int) -> int:
        params = {"kind": kind, "payload": payload, "brand_id": brand_id, "now": now}

        def run(conn: sqlite3.Connection) -> int:
            return conn.execute(SQL["enqueue"], params).fetchone()[0]

        job_id = await self._db.write(run)
        for wake in self._wake:
            wake()
        return job_id

    async def enqueue_signed(self, jobs: list[SignedJob], now: int) -> list[int | None]:
        def run(conn: sqlite3.Connection) -> list[int | None]:
            ids: list[int | None] = []
            for job in jobs:
                signed = {"signature": job.signature, "expires_at": job.expires_at}
                if conn.execute(SQL["record_signature"], signed).fetchone() is None:
                    ids.append(None)
                    continue
                params = {"kind": job.kind, "payload": job.payload, "brand_id": job.brand_id}
                ids.append(conn.execute(SQL["enqueue"], {**params, "now": now}).fetchone()[0])
            return ids

        ids = await self._db.write(run)
        if any(job_id is not None for job_id in ids):
            for wake in self._wake:
                wake()
        return ids

    async def watch(self, wake: Callable[[], None]) -> bool:
        """SQLite cannot tell other processes: only this backend's enqueues wake."""
        self._wake.append(wake)
        return True

    async def claim_many(
        self, now: int, stuck_before: int, max_attempts: int, limit: int
    ) -> list[Job]:
        params = {"now": now, "stuck_before": stuck_before, "max_attempts": max_attempts}

        def run(conn: sqlite3.Connection) -> list[Job]:
            jobs: list[Job] = []
            while len(jobs) < limit:
                row = conn.execute(SQL["claim"], params).fetchone()
                if row is None:
                    break
                jobs.append(job_from_row(row))
            return jobs

        return await self._db.write(run)

    async def lost(self, stuck_before: int, max_attempts: int, limit: int) -> list[Job]:
        params = {"stuck_before": stuck_before, "max_attempts": max_attempts, "limit": limit}

        def run(conn: sqlite3.Connection) -> list[Job]:
            return [job_from_row(r) for r in conn.execute(SQL["lost"], params).fetchall()]

        return await self._db.read(run)

    async def complete(self, job: Job, outcome: str, note: str, now: int) -> bool:
        return await self._update(
            "complete", id=job.id, attempts=job.attempts, outcome=outcome, note=note, now=now
        )

    async def complete_many(self, done: list[tuple[Job, str, str]], now: int) -> list[bool]:
        def run(conn: sqlite3.Connection) -> list[bool]:
            return [
                conn.execute(
                    SQL["complete"],
                    {
                        "id": job.id,
                        "attempts": job.attempts,
                        "outcome": outcome,
                        "note": note,
                        "now": now,
                    },
                ).rowcount
                > 0
                for job, outcome, note in done
            ]

        return await self._db.write(run)

    async def retry(self, job: Job, error: str, now: int, next_attempt_at: int) -> bool:
        return await self._update(
            "retry",
            id=job.id,
            attempts=job.attempts,
            error=error,
            now=now,
            next_attempt_at=next_attempt_at,
        )

    async def fail(self, job: Job, error: str, now: int) -> bool:
        return await self._update("fail", id=job.id, attempts=job.attempts, error=error, now=now)

    async def release(self, job: Job, now: int) -> bool:
        return await self._update("release", id=job.id, attempts=job.attempts, now=now)

    async def renew(self, job: Job, now: int) -> bool:
        return await self._update("renew", id=job.id, attempts=job.attempts, now=now)

    async def close(self) -> None:
        """The database is the process's; its owner closes it."""
