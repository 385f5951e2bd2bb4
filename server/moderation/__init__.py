"""rk.server.moderation: publishing, rejecting and deleting articles, each
change audited and announced.
"""

from __future__ import annotations

from rk.server.moderation.moderation import (
    ACTIONS,
    MAX_BATCH,
    TAB_COUNTS,
    Actor,
    StaleArticle,
    UnknownArticle,
    moderate,
    summary,
    visible_status,
)

__all__ = [
    "ACTIONS",
    "MAX_BATCH",
    "TAB_COUNTS",
    "Actor",
    "StaleArticle",
    "UnknownArticle",
    "moderate",
    "summary",
    "visible_status",
]
