"""0025: detail shots linked to their looks, and the model wearing each look.

- ``images.look_number``: the look an image shows — a look's own number, the look a detail
  shot belongs to (from the source's slideshow), NULL for a detail nobody linked;
- ``images.model_name``: the model wearing a look ("" when the source does not say);
- an index (article_id, look_number) so a show page lists each look with its details.

Existing rows: looks get their number (``position``), details stay NULL (unlinked).
"""

from __future__ import annotations

from rk.server.platform.db.migration_steps import schema_steps

STATEMENTS = [
    "ALTER TABLE images ADD COLUMN look_number INTEGER NULL",
    "ALTER TABLE images ADD COLUMN model_name VARCHAR(200) NOT NULL DEFAULT ''",
    "UPDATE images SET look_number = position WHERE role = 'look'",
    "CREATE INDEX images_article_look_idx ON images (article_id, look_number)",
]


forwards = schema_steps(STATEMENTS)
