"""The PostgreSQL ingest-queue backend: claims with ``FOR UPDATE SKIP LOCKED``; only SQL here."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rk.core.api.queues import ClaimsInBatches, Job, SignedJob, job_from_row, unique_claims
from rk.server.platform.db.pg_database import PgDatabase

JOB_COLUMNS = "id, kind, payload, attempts, brand_id"
CHANNEL = "rk_ingest"
"""The ``NOTIFY`` channel of new ingest jobs."""

INDEX_PLANS = (
    "SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off; "
    "SET LOCAL enable_sort = off; SET LOCAL jit = off"
)
"""Planner settings of the claim's transaction. Without statistics that show the backlog
(a table not yet analyzed, or analyzed while the queue was empty or drained: every job
done), the planner takes the pending rows for a handful and plans a bitmap scan, or a
scan of another index on ``status`` (the admin console's), that sorts all of them on
every claim: 30 ms a claim at 20,000 pending, 110-130 ms at 88,000, where walking the
claim index in order reads only the rows it takes. With these off, the claim walks its
index whatever the statistics say; the sorts it still needs are of its own few rows. JIT
is off too: the cost a disabled plan node is charged is far over ``jit_above_cost``, and
compiling the claim took 350 ms a claim."""

SQL = {
    "enqueue": """
        INSERT INTO ingest_jobs (kind, status, attempts, payload, last_error, outcome, note,
                                 brand_id, locked_at, next_attempt_at, created_at, updated_at)
        VALUES ($1, 'pending', 0, $2, '', '', '', $3, 0, $4, $4, $4)
        RETURNING id""",
    # Listeners (idle workers of every process) hear of the job when it commits.
    "enqueue_notify": f"""
        WITH ins AS ({{enqueue}})
        SELECT id, pg_notify('{CHANNEL}', '') FROM ins""",
    # Ids are drawn first, so each request learns its own; a replay's id goes unused.
    "enqueue_signed": f"""
        WITH req AS (
            SELECT r.*, nextval(pg_get_serial_sequence('ingest_jobs', 'id')) AS id
            FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])
                 AS r(signature, expires_at, kind, payload, brand_id)
        ), fresh AS (
            INSERT INTO signed_requests (signature, expires_at)
            SELECT signature, expires_at FROM req
            ON CONFLICT (signature) DO NOTHING
            RETURNING signature
        ), job AS (
            INSERT INTO ingest_jobs (id, kind, status, attempts, payload, last_error, outcome,
                                     note, brand_id, locked_at, next_attempt_at, created_at,
                                     updated_at)
            SELECT req.id, req.kind, 'pending', 0, req.payload, '', '', '', req.brand_id, 0,
                   $6, $6, $6
            FROM req JOIN fresh USING (signature)
            RETURNING id
        )
        SELECT req.signature, job.id, pg_notify('{CHANNEL}', '')
        FROM req JOIN job USING (id)""",
    # Each branch walks its partial index (ingest_jobs_leased_idx: processing jobs by
    # locked_at; ingest_jobs_due_idx: pending jobs by next_attempt_at, id) and skips rows
    # other claimers hold, so concurrent claims never wait on each other nor take the
    # same row; the earliest-due $4 of the candidates win. A stuck job is due at
    # locked_at + stuck timeout ($1 - $2).
    "claim_many": f"""
        WITH stuck AS (
            SELECT id, locked_at + ($1::bigint - $2::bigint) AS due FROM ingest_jobs
            WHERE status = 'processing' AND locked_at < $2 AND attempts < $3
            ORDER BY locked_at, id
            LIMIT $4
            FOR UPDATE SKIP LOCKED
        ), ready AS (
            SELECT id, next_attempt_at AS due FROM ingest_jobs
            WHERE status = 'pending' AND next_attempt_at <= $1
            ORDER BY next_attempt_at, id
            LIMIT $4
            FOR UPDATE SKIP LOCKED
        ), pick AS (
            SELECT id, due FROM (SELECT * FROM stuck UNION ALL SELECT * FROM ready) AS candidate
            ORDER BY due, id
            LIMIT $4
        )
        UPDATE ingest_jobs AS j
        SET status = 'processing', attempts = j.attempts + 1, locked_at = $1, updated_at = $1
        FROM pick
        WHERE j.id = pick.id
        RETURNING {", ".join(f"j.{c}" for c in JOB_COLUMNS.split(", "))}, pick.due""",
    "lost": f"""
        SELECT {JOB_COLUMNS} FROM ingest_jobs
        WHERE status = 'processing' AND locked_at < $1 AND attempts >= $2
        ORDER BY id
        LIMIT $3""",
    "complete": """
        UPDATE ingest_jobs SET status = 'done', outcome = $3, note = $4, updated_at = $5
        WHERE id = $1 AND status = 'processing' AND attempts = $2""",
    # One statement for many completions; a row not returned had lost its claim.
    "complete_many": """
        UPDATE ingest_jobs AS j
        SET status = 'done', outcome = v.outcome, note = v.note, updated_at = $5
        FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
             AS v(id, attempts, outcome, note)
        WHERE j.id = v.id AND j.status = 'processing' AND j.attempts = v.attempts
        RETURNING j.id, j.attempts""",
    "retry": """
        UPDATE ingest_jobs
        SET status = 'pending', last_error = $3, next_attempt_at = $5, updated_at = $4
        WHERE id = $1 AND status = 'processing' AND attempts = $2""",
    "fail": """
        UPDATE ingest_jobs SET status = 'failed', last_error = $3, updated_at = $4
        WHERE id = $1 AND status = 'processing' AND attempts = $2""",
    "renew": """
        UPDATE ingest_jobs SET locked_at = $3, updated_at = $3
        WHERE id = $1 AND status = 'processing' AND attempts = $2""",
    "release": """
        UPDATE ingest_jobs
        SET status = 'pending', attempts = attempts - 1, locked_at = 0, updated_at = $3
        WHERE id = $1 AND status = 'processing' AND attempts = $2""",
}


SQL["enqueue_notify"] = SQL["enqueue_notify"].replace("{enqueue}", SQL["enqueue"])


class PostgresQueue(ClaimsInBatches):
    """``ingest_jobs`` on PostgreSQL; safe for any number of processes."""

    schemes: ClassVar[tuple[str, ...]] = ("postgresql", "postgres")

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    async def enqueue(self, kind: str, payload: str, brand_id: int, now: int) -> int:
        return await self._db.value(SQL["enqueue_notify"], kind, payload, brand_id, now)

    async def enqueue_signed(self, jobs: list[SignedJob], now: int) -> list[int | None]:
        rows = await self._db.rows(
            SQL["enqueue_signed"],
            [job.signature for job in jobs],
            [job.expires_at for job in jobs],
            [job.kind for job in jobs],
            [job.payload for job in jobs],
            [job.brand_id for job in jobs],
            now,
        )
        ids = {row["signature"]: row["id"] for row in rows}
        return [ids.get(job.signature) for job in jobs]

    async def watch(self, wake: Callable[[], None]) -> bool:
        return await self._db.listen(CHANNEL, wake)

    async def claim_many(
        self, now: int, stuck_before: int, max_attempts: int, limit: int
    ) -> list[Job]:
        async with self._db.transaction() as tx:
            await tx.execute(INDEX_PLANS)
            found = await tx.rows(SQL["claim_many"], now, stuck_before, max_attempts, limit)
        return [job_from_row(r) for r in sorted(found, key=lambda r: (r["due"], r["id"]))]

    async def lost(self, stuck_before: int, max_attempts: int, limit: int) -> list[Job]:
        return [
            job_from_row(r)
            for r in await self._db.rows(SQL["lost"], stuck_before, max_attempts, limit)
        ]

    async def complete(self, job: Job, outcome: str, note: str, now: int) -> bool:
        return (
            await self._db.execute(SQL["complete"], job.id, job.attempts, outcome, note, now)
        ) > 0

    async def complete_many(self, done: list[tuple[Job, str, str]], now: int) -> list[bool]:
        first = unique_claims(done)
        items = [done[i] for i in sorted(first.values())]
        held = {
            (r["id"], r["attempts"])
            for r in await self._db.rows(
                SQL["complete_many"],
                [job.id for job, _, _ in items],
                [job.attempts for job, _, _ in items],
                [outcome for _, outcome, _ in items],
                [note for _, _, note in items],
                now,
            )
        }
        return [
            first[(job.id, job.attempts)] == i and (job.id, job.attempts) in held
            for i, (job, _, _) in enumerate(done)
        ]

    async def retry(self, job: Job, error: str, now: int, next_attempt_at: int) -> bool:
        return (
            await self._db.execute(SQL["retry"], job.id, job.attempts, error, now, next_attempt_at)
        ) > 0

    async def fail(self, job: Job, error: str, now: int) -> bool:
        return (await self._db.execute(SQL["fail"], job.id, job.attempts, error, now)) > 0

    async def release(self, job: Job, now: int) -> bool:
        return (await self._db.execute(SQL["release"], job.id, job.attempts, now)) > 0

    async def renew(self, job: Job, now: int) -> bool:
        return (await self._db.execute(SQL["renew"], job.id, job.attempts, now)) > 0

    async def close(self) -> None:
        """The database is the process's; its owner closes it."""
