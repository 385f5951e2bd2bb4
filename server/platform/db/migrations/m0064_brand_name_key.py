"""0064: brand names are unique ignoring case, and stored in Unicode NFC.

Until now ``brands.name`` was unique only byte for byte, so one brand could be added three
times ("Comme des Garçons" typed in NFC, in NFD, and in another case). This migration
rewrites every name in NFC and adds ``brands_name_any_case``, a unique index on ``lower(name)``
(PostgreSQL folds every letter; SQLite's ``lower`` folds ASCII only, so rk's brand service
compares the rest). Brands that already clash are never merged behind the operator's back:
the migration stops, changes nothing, and names them, to be renamed or merged first. The
code is frozen here (no import from the brands slice).
"""

from __future__ import annotations

import unicodedata

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.core.api.errors import RkError
from rk.server.platform.db.migrate import execute


class BrandNamesClash(RkError):
    """Two or more brands have names that differ only in case or Unicode form."""


def clashes(names: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """The groups of ``(id, name)`` whose names are equal once in NFC and lowercased."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for brand_id, name in names:
        groups.setdefault(unicodedata.normalize("NFC", name).lower(), []).append((brand_id, name))
    return [group for group in groups.values() if len(group) > 1]


async def forwards(engine: Engine) -> None:
    """Refuse clashing names; rewrite names in NFC; index ``lower(name)`` uniquely."""
    rows = await engine.run_querystring(QueryString("SELECT id, name FROM brands ORDER BY id"))
    names = [(int(row["id"]), str(row["name"])) for row in rows]
    found = clashes(names)
    if found:
        listed = "; ".join(
            " and ".join(f"{name!r} (id {brand_id})" for brand_id, name in group) for group in found
        )
        raise BrandNamesClash(
            f"migration 0064_brand_name_key: brand names differ only in case or Unicode form:"
            f" {listed}; rename or merge them (UPDATE brands SET name = ... WHERE id = ...),"
            " then migrate again"
        )
    for brand_id, name in names:
        if unicodedata.normalize("NFC", name) != name:
            await engine.run_querystring(
                QueryString(
                    "UPDATE brands SET name = {} WHERE id = {}",
                    unicodedata.normalize("NFC", name),
                    brand_id,
                )
            )
    await execute(engine, "CREATE UNIQUE INDEX brands_name_any_case ON brands (lower(name))")
