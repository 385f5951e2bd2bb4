"""The piccolo tables of rk. Times are unix seconds (BigInt); 0 means "not set".

The tables live by what they hold (``tables_archive``, ``tables_vectors``, ``tables_jobs``,
``tables_access``); this module is where the rest of rk imports them from, and
``ALL_TABLES`` is every one of them, bound to the process's database and checked against
the migrations. Composite indexes and unique constraints that piccolo columns cannot express
are created by the migrations (see ``migrations/``); their names are listed beside each table.
"""

from __future__ import annotations

from piccolo.table import Table

from rk.server.platform.db.tables_access import (
    AdminSession,
    AdminUser,
    InstanceSecret,
    SignedRequest,
    SignInCounter,
)
from rk.server.platform.db.tables_archive import (
    Article,
    Board,
    BoardItem,
    Brand,
    Image,
    ImageColour,
    ImageRendition,
    ImageTag,
    ImageTagAudit,
    ImageTagRun,
    ModerationAudit,
    PublicChange,
    PublicFacetCount,
)
from rk.server.platform.db.tables_jobs import CrawlTask, HostBudget, IngestJob, JobLock, MediaClaim
from rk.server.platform.db.tables_vectors import (
    ImageEmbedding,
    ImageEmbeddingFailure,
    ImageNeighbor,
    SearchPhoto,
    VectorClock,
    VectorDeletion,
    VectorSpace,
)

ALL_TABLES: list[type[Table]] = [
    Brand,
    Article,
    Image,
    ImageRendition,
    ImageEmbedding,
    ImageEmbeddingFailure,
    ImageNeighbor,
    CrawlTask,
    IngestJob,
    JobLock,
    MediaClaim,
    AdminUser,
    AdminSession,
    SignInCounter,
    ModerationAudit,
    PublicChange,
    PublicFacetCount,
    SearchPhoto,
    VectorSpace,
    VectorClock,
    VectorDeletion,
    SignedRequest,
    InstanceSecret,
    HostBudget,
    ImageColour,
    ImageTag,
    Board,
    BoardItem,
    ImageTagRun,
    ImageTagAudit,
]

__all__ = [
    "ALL_TABLES",
    "AdminSession",
    "AdminUser",
    "Article",
    "Board",
    "BoardItem",
    "Brand",
    "CrawlTask",
    "HostBudget",
    "Image",
    "ImageColour",
    "ImageEmbedding",
    "ImageEmbeddingFailure",
    "ImageNeighbor",
    "ImageRendition",
    "ImageTag",
    "ImageTagAudit",
    "ImageTagRun",
    "IngestJob",
    "InstanceSecret",
    "JobLock",
    "MediaClaim",
    "ModerationAudit",
    "PublicChange",
    "PublicFacetCount",
    "SearchPhoto",
    "SignInCounter",
    "SignedRequest",
    "VectorClock",
    "VectorDeletion",
    "VectorSpace",
]
