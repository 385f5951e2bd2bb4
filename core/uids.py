"""Brand uids: short public ids made with sqids.

sqids is the maintained successor of hashids (same authors; hashids is no longer
developed), pure Python, and has no salt to get wrong between instances. The uid is
stored in the brands table when the brand is created and resolved by lookup, never
by decoding, so two backends with different settings can never disagree on a brand.
"""

from __future__ import annotations

from sqids import Sqids

_SQIDS = Sqids(min_length=8)


def brand_uid(brand_id: int) -> str:
    """The public uid of brand ``brand_id``."""
    return _SQIDS.encode([brand_id])
