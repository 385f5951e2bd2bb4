"""rk.server.platform: what every slice stands on (database, job queue, HTTP, signing, web, ops).

It imports no slice: slices import it.
"""

from __future__ import annotations
