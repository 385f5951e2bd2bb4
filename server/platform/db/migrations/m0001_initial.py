"""0001: the first schema: every table, and the composite indexes the queues and dedupe need.

The columns are written out here (not imported from ``tables.py``) so this migration
creates the same schema forever, whatever ``tables.py`` becomes later.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Bytea, Column, Integer, Real, Text, Varchar

from rk.server.platform.db.migration_steps import schema_steps


def _tables() -> dict[str, dict[str, Column]]:
    """Fresh column objects per run: piccolo binds a column object to one table class."""
    return {
        "brands": {
            "uid": Varchar(length=32, unique=True),
            "name": Varchar(length=200, unique=True),
            "slugs": Text(default="{}"),
            "created_at": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
        "articles": {
            "source": Varchar(length=32),
            "show_key": Varchar(length=512),
            "kind": Varchar(length=16),
            "brand_id": BigInt(default=0, index=True),
            "title": Varchar(length=200, default=""),
            "season": Varchar(length=200, default=""),
            "city": Varchar(length=200, default=""),
            "date": Varchar(length=40, default=""),
            "url": Text(default=""),
            "designer": Varchar(length=200, default=""),
            "author": Varchar(length=200, default=""),
            "status": Varchar(length=16, default="pending", index=True),
            "deleted_at": BigInt(default=0),
            "created_at": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
        "images": {
            "article_id": BigInt(index=True),
            "role": Varchar(length=16),
            "position": Integer(),
            "kind": Varchar(length=16),
            "key": Varchar(length=64, index=True),
            "thumb_key": Varchar(length=64, default=""),
            "sha1": Varchar(length=40, default=""),
            "size": BigInt(default=0),
            "width": Integer(default=0),
            "height": Integer(default=0),
            "source_url": Text(default=""),
            "uploaded_by_spider": Integer(default=0),
            "created_at": BigInt(default=0),
        },
        "image_embeddings": {
            "image_id": BigInt(index=True),
            "model": Varchar(length=128),
            "kind": Varchar(length=16),
            "dim": Integer(),
            "vector": Bytea(),
            "created_at": BigInt(default=0),
        },
        "image_embedding_failures": {
            "image_id": BigInt(index=True),
            "model": Varchar(length=128),
            "failures": Integer(default=0),
            "last_error": Text(default=""),
            "updated_at": BigInt(default=0),
        },
        "image_neighbors": {
            "image_id": BigInt(index=True),
            "model": Varchar(length=128),
            "neighbor_id": BigInt(),
            "rank": Integer(),
            "score": Real(),
        },
        "crawl_tasks": {
            "brand_id": BigInt(index=True),
            "source": Varchar(length=32, default="vogue"),
            "status": Varchar(length=16, default="queued"),
            "priority": Integer(default=0),
            "max_shows": Integer(default=0),
            "worker": Varchar(length=128, default=""),
            "locked_at": BigInt(default=0),
            "attempts": Integer(default=0),
            "shows_submitted": Integer(default=0),
            "last_error": Text(default=""),
            "created_at": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
        "ingest_jobs": {
            "kind": Varchar(length=16, default="crawl"),
            "status": Varchar(length=16, default="pending"),
            "attempts": Integer(default=0),
            "payload": Text(default=""),
            "last_error": Text(default=""),
            "outcome": Varchar(length=24, default=""),
            "note": Text(default=""),
            "brand_id": BigInt(default=0, index=True),
            "locked_at": BigInt(default=0),
            "next_attempt_at": BigInt(default=0),
            "created_at": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
        "job_locks": {
            "name": Varchar(length=64, unique=True),
            "holder": Varchar(length=128, default=""),
            "until": BigInt(default=0),
        },
        "admin_users": {
            "username": Varchar(length=64, unique=True),
            "password_hash": Text(),
            "created_at": BigInt(default=0),
            "last_login_at": BigInt(default=0),
        },
    }


INDEXES = [
    "CREATE UNIQUE INDEX articles_source_show_key_uq ON articles (source, show_key)",
    "CREATE UNIQUE INDEX image_embeddings_image_model_uq ON image_embeddings (image_id, model)",
    "CREATE UNIQUE INDEX image_embedding_failures_image_model_uq"
    " ON image_embedding_failures (image_id, model)",
    "CREATE UNIQUE INDEX image_neighbors_model_image_rank_uq"
    " ON image_neighbors (model, image_id, rank)",
    "CREATE INDEX image_neighbors_model_neighbor_idx ON image_neighbors (model, neighbor_id)",
    "CREATE INDEX ingest_jobs_claim_idx ON ingest_jobs (status, next_attempt_at, id)",
    "CREATE INDEX crawl_tasks_claim_idx ON crawl_tasks (status, priority, id)",
    "CREATE INDEX images_article_role_position_idx ON images (article_id, role, position)",
]
"""Unique indexes serve as the unique constraints (and ``ON CONFLICT`` targets) on both."""


forwards = schema_steps(INDEXES, tables=_tables)
