"""0002: what the embedding backfill and the neighbours job need.

- ``images.embed_leased_until``: pending images are handed out with a short lease, so
  two embed workers asking at once get disjoint sets;
- ``image_embeddings.neighbours_at``: 0 until the neighbours job has placed the vector
  (a re-submitted vector resets it), so the job finds its work with an index;
- indexes for the job's block scan (model, kind, image_id) and for the pending scan.
"""

from __future__ import annotations

from rk.server.platform.db.migration_steps import schema_steps

STATEMENTS = [
    "ALTER TABLE images ADD COLUMN embed_leased_until BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE image_embeddings ADD COLUMN neighbours_at BIGINT NOT NULL DEFAULT 0",
    "CREATE INDEX images_kind_id_idx ON images (kind, id)",
    "CREATE INDEX image_embeddings_model_kind_image_idx"
    " ON image_embeddings (model, kind, image_id)",
    "CREATE INDEX image_embeddings_model_neighbours_idx ON image_embeddings (model, neighbours_at)",
]


forwards = schema_steps(STATEMENTS)
