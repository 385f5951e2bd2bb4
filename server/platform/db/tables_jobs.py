"""The work tables: crawl tasks, ingest jobs with their media claims, named locks and the
fleet's per-host crawl budgets."""

from __future__ import annotations

from piccolo.columns import BigInt, Integer, Serial, Text, Varchar
from piccolo.table import Table


class CrawlTask(Table, tablename="crawl_tasks"):
    """A brand to crawl: queued → running → done | failed | canceled.

    ``season`` (a source's season slug) limits the task to the brand's show of that season.

    Index (status, priority, id) serves the claim query.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    brand_id = BigInt(index=True)
    source = Varchar(length=32, default="vogue")
    status = Varchar(length=16, default="queued")
    priority = Integer(default=0)
    max_shows = Integer(default=0)
    worker = Varchar(length=128, default="")
    locked_at = BigInt(default=0)
    attempts = Integer(default=0)
    shows_submitted = Integer(default=0)
    last_error = Text(default="")
    created_at = BigInt(default=0)
    updated_at = BigInt(default=0)
    season = Varchar(length=200, default="")


class IngestJob(Table, tablename="ingest_jobs"):
    """pending → processing → done | failed; kinds crawl and media_cleanup.

    Index (status, next_attempt_at, id) serves the claim query.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    kind = Varchar(length=16, default="crawl")
    status = Varchar(length=16, default="pending")
    attempts = Integer(default=0)
    payload = Text(default="")
    last_error = Text(default="")
    outcome = Varchar(length=24, default="")
    note = Text(default="")
    brand_id = BigInt(default=0)  # indexed with id (0015; 0045 dropped the lone index)
    locked_at = BigInt(default=0)
    next_attempt_at = BigInt(default=0)
    created_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class MediaClaim(Table, tablename="media_claims"):
    """A key a running ingest job is about to reference; live while the job is processing."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    key = Varchar(length=64, index=True)
    job_id = BigInt(index=True)
    claimed_at = BigInt(default=0)


class JobLock(Table, tablename="job_locks"):
    """A named lease (e.g. the single neighbours job): held by ``holder`` until ``until``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    name = Varchar(length=64, unique=True)
    holder = Varchar(length=128, default="")
    until = BigInt(default=0)


class HostBudget(Table, tablename="host_budgets"):
    """One site host's shared request budget (migration 0062): no spider starts a request on
    ``host`` before ``next_ms`` (unix milliseconds); ``updated_at`` is when it last moved."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    host = Varchar(length=253, unique=True)
    next_ms = BigInt(default=0)
    updated_at = BigInt(default=0)
