"""Vectors into a pgvector table by binary COPY: the stream built by numpy in one go.

Formatting each float as text in Python was most of a 1M fill (17 minutes); the binary
COPY row of a space is three ``bigint`` and pgvector's binary ``vector`` (``int16`` dim,
``int16`` unused, then dim big-endian ``float4``), so a whole batch is one structured
array. Rows go through a temporary table and one ``INSERT … ON CONFLICT``, so a row that a
save wrote meanwhile is kept when it is newer (``change_seq``).
"""

from __future__ import annotations

import io

import numpy as np

from rk.server.similarity.vectors.pg_database import pg_database

HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
"""Signature, flags 0, header extension length 0."""
TRAILER = b"\xff\xff"


def copy_stream(
    ids: np.ndarray, image_ids: np.ndarray, seqs: np.ndarray, vectors: np.ndarray
) -> bytes:
    """The binary COPY data of rows (embedding id, image id, change_seq, vector)."""
    count, dim = vectors.shape
    row = np.dtype(
        [
            ("fields", ">i2"),
            ("id_len", ">i4"),
            ("id", ">i8"),
            ("image_len", ">i4"),
            ("image", ">i8"),
            ("seq_len", ">i4"),
            ("seq", ">i8"),
            ("vec_len", ">i4"),
            ("dim", ">i2"),
            ("unused", ">i2"),
            ("vec", ">f4", (dim,)),
        ]
    )
    out = np.zeros(count, dtype=row)
    out["fields"] = 4
    out["id_len"] = out["image_len"] = out["seq_len"] = 8
    out["vec_len"] = 4 + 4 * dim
    out["dim"] = dim
    out["id"], out["image"], out["seq"] = ids, image_ids, seqs
    out["vec"] = vectors
    return HEADER + out.tobytes() + TRAILER


def stored_matrix(stored: list[bytes], dim: int) -> np.ndarray:
    """``image_embeddings`` vectors (float32 little-endian bytes) as one matrix."""
    return np.frombuffer(b"".join(stored), dtype="<f4").reshape(len(stored), dim)


async def upsert_vectors(
    table: str, ids: list[int], image_ids: list[int], seqs: list[int], vectors: np.ndarray
) -> None:
    """Write these rows into ``table``: new ones added, older copies replaced."""
    db = pg_database()
    data = copy_stream(np.asarray(ids), np.asarray(image_ids), np.asarray(seqs), vectors)
    async with db.transaction() as tx:
        await tx.conn.execute(f"CREATE TEMP TABLE rk_vector_stage (LIKE {table}) ON COMMIT DROP")
        await tx.conn.copy_to_table("rk_vector_stage", source=io.BytesIO(data), format="binary")
        await tx.execute(
            f"INSERT INTO {table} (embedding_id, image_id, change_seq, embedding)"
            " SELECT embedding_id, image_id, change_seq, embedding FROM rk_vector_stage"
            " ON CONFLICT (embedding_id) DO UPDATE SET image_id = excluded.image_id,"
            " change_seq = excluded.change_seq, embedding = excluded.embedding"
            f" WHERE {table}.change_seq < excluded.change_seq"
        )
