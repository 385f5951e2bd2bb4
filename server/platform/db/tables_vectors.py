"""The similarity tables: embeddings and their failures, neighbour lists, search photos and
the pgvector spaces with the vector clock that orders their changes."""

from __future__ import annotations

from piccolo.columns import BigInt, Bytea, Integer, Real, Serial, Text, Varchar
from piccolo.table import Table


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
