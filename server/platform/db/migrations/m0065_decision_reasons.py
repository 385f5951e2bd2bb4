"""0065: why a moderator rejected an article, and which decision an undo reversed.

- ``moderation_audit.reason``: the console's reason for a rejection (one of its list, then
  the moderator's own words), shown on the article and in the audit log; "" otherwise;
- ``moderation_audit.undoes``: the audit row an undo reversed (0 for a decision of its own);
- an index (user_id, id), so the console finds an account's last decision to offer its undo.
"""

from __future__ import annotations

from rk.server.platform.db.migration_steps import schema_steps

STATEMENTS = [
    "ALTER TABLE moderation_audit ADD COLUMN reason TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE moderation_audit ADD COLUMN undoes BIGINT NOT NULL DEFAULT 0",
    "CREATE INDEX moderation_audit_user_idx ON moderation_audit (user_id, id)",
]


forwards = schema_steps(STATEMENTS)
