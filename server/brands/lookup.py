"""Brand lookups for the internal API: uid → id at submission, id or uid → BrandInfo."""

from __future__ import annotations

import json
import re
from typing import Any

from rk.core.api.wire import MAX_ID, BrandInfo
from rk.server.brands.repository import brand_by_id, brand_by_old_uid, brand_by_uid
from rk.server.brands.uids import brand_id_by_uid


async def brand_id_for_uid(uid: str) -> int | None:
    """The id of the brand whose uid (or pre-0050 uid) is ``uid``, or None when there is none."""
    return await brand_id_by_uid(uid)


class BrandIds:
    """uid → id lookups for ingest, remembered: a uid is made from its brand's id once and
    never changes, so a hit stays true. Misses are not remembered (the brand may be added
    any moment). One per app, so two backends in one process never share answers.
    """

    def __init__(self, max_entries: int = 10_000) -> None:
        self.max_entries = max_entries
        self._ids: dict[str, int] = {}

    async def id_for(self, uid: str) -> int | None:
        """The brand id of ``uid``, or None when no brand has it."""
        known = self._ids.get(uid)
        if known is not None:
            return known
        found = await brand_id_for_uid(uid)
        if found is not None:
            if len(self._ids) >= self.max_entries:
                self._ids.clear()
            self._ids[uid] = found
        return found


def slugs_of(raw: Any) -> dict[str, str]:
    """A brand row's ``slugs`` column (JSON text, or already decoded) as source -> slug."""
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


ID_TEXT = re.compile(r"[1-9][0-9]{0,18}")


async def brand_info(ref: str) -> BrandInfo | None:
    """The brand addressed by its uid (or pre-0050 uid) or, failing that, its numeric id;
    None when neither."""
    row = await brand_by_uid(ref)
    if row is None and ref:
        row = await brand_by_old_uid(ref)
    if row is None and ID_TEXT.fullmatch(ref) and int(ref) <= MAX_ID:
        row = await brand_by_id(int(ref))
    if row is None:
        return None
    return BrandInfo(
        id=int(row["id"]), uid=row["uid"], name=row["name"], slugs=slugs_of(row["slugs"])
    )
