"""rk.server.moderation: publishing, rejecting and deleting articles, each
change audited and announced.
"""

from __future__ import annotations
