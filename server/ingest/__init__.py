"""rk.server.ingest: a submitted show becomes an article: signed intake, the ingest
job and its worker pool, and getting each image into storage.
"""

from __future__ import annotations

from rk.server.ingest.fetch import Fetcher, FetchPolicy, allow_list
from rk.server.ingest.ingest_job import IngestService
from rk.server.ingest.intake import ShowIntake, source_kinds
from rk.server.ingest.intake_routes import ingest
from rk.server.ingest.internal_routes import InternalController
from rk.server.ingest.worker import IngestWorkers

__all__ = [
    "FetchPolicy",
    "Fetcher",
    "IngestService",
    "IngestWorkers",
    "InternalController",
    "ShowIntake",
    "allow_list",
    "ingest",
    "source_kinds",
]
