"""rk.server.media: stored objects: who may read them (``/media``), who references
them, upload grants for spiders, cleanup jobs and the storage sweep.
"""

from __future__ import annotations
