"""Brand uids of this instance: making a new brand's, and finding a brand by either uid.

A brand's ``uid`` is sqids of its id in the instance's own alphabet (``rk.core.uids``,
kept in ``instance_secrets`` by migration 0050). A uid handed out before 0050 is the
brand's ``old_uid`` and still finds it; every page and answer shows ``uid``.
"""

from __future__ import annotations

from rk.core.uids import brand_uid
from rk.server.brands.repository import brand_id_with_uid, instance_secret

ALPHABET = "brand_uid_alphabet"


async def instance_alphabet() -> str:
    """This archive's sqids alphabet for brand uids (drawn by migration 0050)."""
    alphabet = await instance_secret(ALPHABET)
    if alphabet is None:
        raise RuntimeError("instance_secrets has no brand_uid_alphabet: run rk db migrate")
    return alphabet


async def new_brand_uid(brand_id: int) -> str:
    """The uid a brand created with ``brand_id`` gets."""
    return brand_uid(brand_id, await instance_alphabet())


async def brand_id_by_uid(uid: str) -> int | None:
    """The id of the brand whose uid (or pre-0050 uid) is ``uid``; None when there is none."""
    if not uid:
        return None
    return await brand_id_with_uid(uid)
