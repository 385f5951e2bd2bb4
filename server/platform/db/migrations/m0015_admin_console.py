"""0015: the moderation console: account roles, sessions, sign-in failures, the audit log.

Sessions and sign-in failures live in the database (not in a process), so a session
survives a backend restart and the rate limit holds across several backend processes.
The indexes serve the console's keyset-paginated lists (newest first per status).
"""

from __future__ import annotations

from piccolo.columns import BigInt, Column, Varchar

from rk.server.platform.db.migration_steps import schema_steps


def _tables() -> dict[str, dict[str, Column]]:
    """Fresh column objects per run: piccolo binds a column object to one table class."""
    return {
        "admin_sessions": {
            "token_hash": Varchar(length=64, unique=True),
            "user_id": BigInt(index=True),
            "created_at": BigInt(default=0),
            "expires_at": BigInt(default=0),
            "seen_at": BigInt(default=0),
        },
        "sign_in_failures": {
            "key": Varchar(length=200),
            "at": BigInt(default=0),
        },
        "moderation_audit": {
            "article_id": BigInt(),
            "user_id": BigInt(default=0),
            "actor": Varchar(length=64, default=""),
            "old_status": Varchar(length=16, default=""),
            "new_status": Varchar(length=16, default=""),
            "via": Varchar(length=16, default=""),
            "at": BigInt(default=0),
        },
    }


STATEMENTS = [
    "ALTER TABLE admin_users ADD COLUMN role VARCHAR(16) NOT NULL DEFAULT 'moderator'",
    "ALTER TABLE admin_users ADD COLUMN disabled_at BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE admin_users ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0",
    "CREATE INDEX sign_in_failures_key_at_idx ON sign_in_failures (key, at)",
    "CREATE INDEX moderation_audit_article_idx ON moderation_audit (article_id, id)",
    "CREATE INDEX articles_status_deleted_id_idx ON articles (status, deleted_at, id)",
    "CREATE INDEX articles_brand_id_idx ON articles (brand_id, id)",
    "CREATE INDEX crawl_tasks_status_id_idx ON crawl_tasks (status, id)",
    "CREATE INDEX ingest_jobs_status_id_idx ON ingest_jobs (status, id)",
    "CREATE INDEX ingest_jobs_kind_id_idx ON ingest_jobs (kind, id)",
    "CREATE INDEX ingest_jobs_brand_id_idx ON ingest_jobs (brand_id, id)",
    "CREATE INDEX ingest_jobs_status_updated_idx ON ingest_jobs (status, updated_at, outcome)",
]


forwards = schema_steps(STATEMENTS, tables=_tables)
