"""rk.server.moderation: publishing, rejecting and deleting articles (and returning a
decided one to pending), each change audited with its reason and announced.
"""

from __future__ import annotations

from rk.server.moderation.moderation import (
    ACTIONS,
    MAX_BATCH,
    TAB_COUNTS,
    Actor,
    Record,
    StaleArticle,
    UnknownArticle,
    moderate,
    restore,
    summary,
    visible_status,
)

__all__ = [
    "ACTIONS",
    "MAX_BATCH",
    "TAB_COUNTS",
    "Actor",
    "Record",
    "StaleArticle",
    "UnknownArticle",
    "moderate",
    "restore",
    "summary",
    "visible_status",
]
