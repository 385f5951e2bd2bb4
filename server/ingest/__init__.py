"""rk.server.ingest: a submitted show becomes an article: signed intake, the ingest
job and its worker pool, and getting each image into storage.
"""

from __future__ import annotations
