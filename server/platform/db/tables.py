"""The piccolo tables of rk. Times are unix seconds (BigInt); 0 means "not set".

Composite indexes and unique constraints that piccolo columns cannot express are created
by the migrations (see ``migrations/``); their names are listed beside each table.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Bytea, Integer, Real, Serial, Text, Varchar
from piccolo.table import Table


class Brand(Table, tablename="brands"):
    """A designer or label. ``uid`` is its public sqids id; ``slugs`` maps source → slug (JSON).

    ``old_uid`` is the uid it had before migration 0050 (indexed ``brands_old_uid``), which
    still resolves to it; "" for brands created since.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    uid = Varchar(length=32, unique=True)
    name = Varchar(length=200, unique=True)
    slugs = Text(default="{}")
    created_at = BigInt(default=0)
    updated_at = BigInt(default=0)
    old_uid = Varchar(length=32, default="")


class Article(Table, tablename="articles"):
    """A gallery: one runway show or one street-style post. Unique (source, show_key).

    status: pending | published | rejected. ``deleted_at`` > 0 is a permanent soft delete.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    source = Varchar(length=32)
    show_key = Varchar(length=512)
    kind = Varchar(length=16)
    brand_id = BigInt(default=0, index=True)
    title = Varchar(length=200, default="")
    season = Varchar(length=200, default="")
    city = Varchar(length=200, default="")
    date = Varchar(length=40, default="")
    url = Text(default="")
    designer = Varchar(length=200, default="")
    author = Varchar(length=200, default="")
    status = Varchar(length=16, default="pending", index=True)
    deleted_at = BigInt(default=0)
    created_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class Image(Table, tablename="images"):
    """One stored image of an article: a look (position = look number) or a detail shot.

    ``key`` is content addressed and may be shared by several images. ``look_number`` is the
    look the image shows: a look's own number, or the look a detail shot belongs to (NULL:
    not linked); ``model_name`` is the model wearing a look. Index (article_id, look_number).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    article_id = BigInt(index=True)
    role = Varchar(length=16)
    position = Integer()
    kind = Varchar(length=16)
    key = Varchar(length=64, index=True)
    thumb_key = Varchar(length=64, default="", index=True)
    sha1 = Varchar(length=40, default="")
    size = BigInt(default=0)
    width = Integer(default=0)
    height = Integer(default=0)
    source_url = Text(default="")
    uploaded_by_spider = Integer(default=0)
    created_at = BigInt(default=0)
    embed_leased_until = BigInt(default=0)
    look_number = Integer(null=True, default=None)
    model_name = Varchar(length=200, default="")


class ImageRendition(Table, tablename="image_renditions"):
    """The rendition ladder stored for one original (migration 0068), shared by every image of
    it: the ``widths`` of its WebP rungs ``r/<width>/<sha1>.webp`` (``360,560,640``; ``""``: no
    rung fits), made at ``made_at``. Unique ``key`` (the original's content key).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    key = Varchar(length=64, unique=True)
    widths = Varchar(length=64, default="")
    made_at = BigInt(default=0)


class ImageEmbedding(Table, tablename="image_embeddings"):
    """One image's vector for one model: float32 little-endian bytes. Unique (image_id, model).

    ``neighbours_at`` is 0 until the neighbours job has placed this vector. ``change_seq``
    is set by the database whenever the vector is written, in commit order (migration 0030).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt(index=True)
    model = Varchar(length=128)
    kind = Varchar(length=16)
    dim = Integer()
    vector = Bytea()
    created_at = BigInt(default=0)
    neighbours_at = BigInt(default=0)
    change_seq = BigInt(default=0)


class ImageEmbeddingFailure(Table, tablename="image_embedding_failures"):
    """How often embedding an image failed for a model. Unique (image_id, model)."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt(index=True)
    model = Varchar(length=128)
    failures = Integer(default=0)
    last_error = Text(default="")
    updated_at = BigInt(default=0)


class ImageNeighbor(Table, tablename="image_neighbors"):
    """One entry of an image's top-K list: ``neighbor_id`` at ``rank`` with cosine ``score``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt(index=True)
    model = Varchar(length=128)
    neighbor_id = BigInt()
    rank = Integer()
    score = Real()


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


class AdminUser(Table, tablename="admin_users"):
    """A console account; ``password_hash`` is a salted scrypt hash (``services.passwords``).

    role: moderator | admin. ``disabled_at`` > 0: the account can no longer sign in.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    username = Varchar(length=64, unique=True)
    password_hash = Text()
    created_at = BigInt(default=0)
    last_login_at = BigInt(default=0)
    role = Varchar(length=16, default="moderator")
    disabled_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class AdminSession(Table, tablename="admin_sessions"):
    """A signed-in browser: the sha256 of its cookie's token, valid until ``expires_at``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    token_hash = Varchar(length=64, unique=True)
    user_id = BigInt(index=True)
    created_at = BigInt(default=0)
    expires_at = BigInt(default=0)
    seen_at = BigInt(default=0)


class SignInCounter(Table, tablename="sign_in_counters"):
    """One sign-in counter (``acct:NAME|addr:IP`` or ``addr:IP``): attempts taken, when the
    next is allowed. Index (migration 0054): ``sign_in_counters_updated_at``."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    key = Varchar(length=220, unique=True)
    attempts = Integer(default=0)
    next_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class HostBudget(Table, tablename="host_budgets"):
    """One site host's shared request budget (migration 0062): no spider starts a request on
    ``host`` before ``next_ms`` (unix milliseconds); ``updated_at`` is when it last moved."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    host = Varchar(length=253, unique=True)
    next_ms = BigInt(default=0)
    updated_at = BigInt(default=0)


class InstanceSecret(Table, tablename="instance_secrets"):
    """A value drawn once for this archive (0050: ``brand_uid_alphabet``). Unique ``name``."""

    id: Serial

    name = Varchar(length=64)
    value = Text()


class ModerationAudit(Table, tablename="moderation_audit"):
    """Who changed an article's status, when, from what to what, and how (web or cli).

    ``reason``: why a moderator rejected it (console); ``undoes``: the audit row an undo
    reversed (0: a decision of its own). Indexes (article_id, id), (user_id, id) (0065).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    article_id = BigInt()
    user_id = BigInt(default=0)
    actor = Varchar(length=64, default="")
    old_status = Varchar(length=16, default="")
    new_status = Varchar(length=16, default="")
    via = Varchar(length=16, default="")
    at = BigInt(default=0)
    reason = Text(default="")
    undoes = BigInt(default=0)


class PublicChange(Table, tablename="public_changes"):
    """A change counter of the public site (``content``, ``neighbours``), moved by triggers.

    See ``migrations/m0021_public_changes.py``: rows are written by the database only.
    """

    name = Varchar(length=32, unique=True)
    version = BigInt(default=0)
    changed_at = BigInt(default=0)


class PublicFacetCount(Table, tablename="public_facet_counts"):
    """How many published shows have one value of a filter (``facet``), kept by triggers.

    See ``migrations/m0032_public_facet_counts.py``: rows are written by the database only;
    ``('total', '')`` counts every published show, brands are ``brand_id`` as text.
    """

    facet = Varchar(length=16)
    value = Varchar(length=200)
    n = BigInt(default=0)


class SearchPhoto(Table, tablename="search_photos"):
    """A photo a visitor searched with, by the SHA-1 of the bytes kept (re-encoded, bounded),
    with the vector its search used (``model``'s, float32 little-endian); deleted once past
    ``expires_at`` (migration 0058)."""

    sha1 = Varchar(length=40, unique=True)
    data = Bytea()
    width = Integer(default=0)
    height = Integer(default=0)
    model = Varchar(length=128, default="")
    vector = Bytea()
    created_at = BigInt(default=0)
    expires_at = BigInt(default=0)


class VectorSpace(Table, tablename="vector_spaces"):
    """The vectors of one (model, kind, dim) in pgvector: table ``rk_vectors_<id>``.

    ``ready_at`` is 0 while existing vectors are still being copied in (search then uses
    the exact index); see ``rk.server.similarity.vectors.pg_spaces``. Unique (model, kind, dim).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    model = Varchar(length=128)
    kind = Varchar(length=16)
    dim = Integer()
    ready_at = BigInt(default=0)


class VectorClock(Table, tablename="vector_clock"):
    """On SQLite, one row (id 1): the last ``change_seq`` handed out; the stamping triggers
    increment it, so stamps never go back when the newest vectors are deleted (migration
    0035). Empty on PostgreSQL, whose clock is the sequence ``rk_vector_changes``.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    value = BigInt(default=0)


class VectorDeletion(Table, tablename="vector_deletions"):
    """A deleted row of ``image_embeddings``, stamped on the vector clock by a trigger
    (migration 0036), so in-process indexes drop what they hold. Index: ``change_seq``.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    change_seq = BigInt()
    image_id = BigInt()
    model = Varchar(length=128)


class SignedRequest(Table, tablename="signed_requests"):
    """A signature the internal API accepted; refused as a replay until ``expires_at``.

    Index (migration 0010): ``signed_requests_expires_at``.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    signature = Varchar(length=64, unique=True)
    expires_at = BigInt(default=0)


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
]


class ImageColour(Table, tablename="image_colours"):
    """One main colour of an image's garment palette (``rk.server.colour``; migration 0060).

    ``rank`` 1 is the largest ``share`` (an image's shares sum to 1); ``name`` is the nearest
    fashion colour by ΔE00 (``delta_e``); Lab is CIELAB D65. Indexes: unique
    ``image_colours_image_rank`` (image_id, rank), ``image_colours_name_share`` (name, share).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt()
    rank = Integer()
    name = Varchar(length=32)
    hex = Varchar(length=7)
    lab_l = Real()
    lab_a = Real()
    lab_b = Real()
    share = Real()
    delta_e = Real()
    computed_at = BigInt(default=0)


ALL_TABLES.append(ImageColour)


class ImageTag(Table, tablename="image_tags"):
    """One zero-shot tag of an image (migration 0070): ``state`` auto | confirmed | removed.

    ``score`` is NULL for a tag a moderator added; ``model`` and ``vocabulary`` (a digest)
    say what computed an ``auto`` row. Indexes: unique ``image_tags_image_tag`` (image_id,
    tag), ``image_tags_tag_state`` (tag, state).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt()
    tag = Varchar(length=64)
    score = Real(null=True, default=None)
    state = Varchar(length=16, default="auto")
    model = Varchar(length=200, default="")
    vocabulary = Varchar(length=64, default="")
    computed_at = BigInt(default=0)


ALL_TABLES.append(ImageTag)


class ImageTagRun(Table, tablename="image_tag_runs"):
    """Which ``model`` and ``vocabulary`` digest last computed an image's ``auto`` tags
    (migration 0071), also when none applied. Unique ``image_tag_runs_image`` (image_id);
    index ``image_tag_runs_model`` (model, vocabulary, image_id)."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt()
    model = Varchar(length=200, default="")
    vocabulary = Varchar(length=64, default="")
    computed_at = BigInt(default=0)


class ImageTagAudit(Table, tablename="image_tag_audit"):
    """A moderator's decision on one tag of an image (migration 0071): confirm, remove or
    add, from ``old_state`` ("" for a new tag) to ``new_state``. Index (image_id, id)."""

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    image_id = BigInt()
    tag = Varchar(length=64)
    old_state = Varchar(length=16, default="")
    new_state = Varchar(length=16, default="")
    user_id = BigInt(default=0)
    actor = Varchar(length=64, default="")
    via = Varchar(length=16, default="")
    at = BigInt(default=0)


ALL_TABLES.extend([ImageTagRun, ImageTagAudit])
