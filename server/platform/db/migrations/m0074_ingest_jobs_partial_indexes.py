"""0074: ``ingest_jobs`` indexes only the rows each reader looks for (partial indexes).

A job's claim and completion change its ``status``, so neither update is HOT and each one
writes a new entry into every index whose predicate the new row version matches. Before
this, all six indexes took one per update (twelve a job). Now the claim index holds only
pending jobs, the lease sweep's only processing ones, the dashboard's finished counts only
done and failed ones, the console's status list every job but the done ones (a done filter
walks the primary key: done jobs are nearly all of them) and its kind list only the rare
kinds: a no-op job writes seven index entries in all, not twelve (PostgreSQL CPU a job
72 → about 60 µs in ``bench.peers``'s queue pair, issue 31). Readers that want a partial
index name its predicate in their SQL as a literal, so every plan, generic or not, proves it.
"""

from __future__ import annotations

from rk.server.platform.db.migration_steps import schema_steps

STATEMENTS = [
    "DROP INDEX IF EXISTS ingest_jobs_claim_idx",
    "DROP INDEX IF EXISTS ingest_jobs_status_updated_idx",
    "DROP INDEX IF EXISTS ingest_jobs_status_id_idx",
    "DROP INDEX IF EXISTS ingest_jobs_kind_id_idx",
    "CREATE INDEX ingest_jobs_due_idx ON ingest_jobs (next_attempt_at, id)"
    " WHERE status = 'pending'",
    "CREATE INDEX ingest_jobs_leased_idx ON ingest_jobs (locked_at, id)"
    " WHERE status = 'processing'",
    "CREATE INDEX ingest_jobs_finished_idx ON ingest_jobs (status, updated_at, outcome)"
    " WHERE status IN ('done', 'failed')",
    "CREATE INDEX ingest_jobs_open_idx ON ingest_jobs (status, id) WHERE status <> 'done'",
    "CREATE INDEX ingest_jobs_rare_kind_idx ON ingest_jobs (kind, id) WHERE kind <> 'crawl'",
]


forwards = schema_steps(STATEMENTS)
