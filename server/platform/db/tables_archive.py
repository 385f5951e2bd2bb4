"""The archive's own tables: brands, articles, their images and what is measured of them,
the moderation audit, and the public site's counters kept by triggers."""

from __future__ import annotations

from piccolo.columns import BigInt, Integer, Real, Serial, Text, Varchar
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


class Board(Table, tablename="boards"):
    """A visitor's shared board (migration 0076), reached by its capability tokens.

    ``edit_hash`` is the SHA-256 of the edit token; ``client_hash`` an HMAC of the creating
    address under the backend's secret, counted per day (index ``boards_client_created``).
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    view_token = Varchar(length=64, unique=True)
    edit_hash = Varchar(length=64)
    title = Varchar(length=1000, default="")
    client_hash = Varchar(length=64, default="")
    created_at = BigInt(default=0)
    updated_at = BigInt(default=0)


class BoardItem(Table, tablename="board_items"):
    """One image on a board at ``position`` (0-based), with a note (migration 0076).

    Index ``board_items_board_position`` (board_id, position); no key to ``images``.
    """

    id: Serial  # piccolo's implicit primary key, declared for type checkers

    board_id = BigInt()
    image_id = BigInt()
    position = Integer(default=0)
    note = Text(default="")
