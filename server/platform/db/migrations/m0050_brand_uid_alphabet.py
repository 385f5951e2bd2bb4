"""0050: brand uids in an alphabet of this instance's own; the old uids kept as aliases.

Until now a brand's uid was sqids of its row id in the default alphabet, so every uid
could be listed in order by encoding 1, 2, 3, … This migration draws a random shuffle of
that alphabet once, keeps it in ``instance_secrets`` (``brand_uid_alphabet``), and
re-encodes every brand in it. The uid a brand had is kept in ``brands.old_uid`` (indexed),
so links and spiders' tasks made before still resolve; new brands have no ``old_uid``.
The code is frozen here (sqids directly, not ``rk.core.uids``).
"""

from __future__ import annotations

import secrets

from piccolo.columns import Text, Varchar
from piccolo.engine.base import Engine
from piccolo.querystring import QueryString
from sqids import Sqids
from sqids.constants import DEFAULT_ALPHABET

from rk.server.platform.db.migrate import create_table, execute

NAME = "brand_uid_alphabet"


async def forwards(engine: Engine) -> None:
    """Create ``instance_secrets`` with a fresh alphabet; move every uid to ``old_uid``."""
    await create_table(engine, "instance_secrets", {"name": Varchar(length=64), "value": Text()})
    await execute(engine, "CREATE UNIQUE INDEX instance_secrets_name ON instance_secrets (name)")
    await execute(engine, "ALTER TABLE brands ADD COLUMN old_uid VARCHAR(32) NOT NULL DEFAULT ''")
    await execute(engine, "CREATE INDEX brands_old_uid ON brands (old_uid)")
    letters = list(DEFAULT_ALPHABET)
    secrets.SystemRandom().shuffle(letters)
    alphabet = "".join(letters)
    await engine.run_querystring(
        QueryString("INSERT INTO instance_secrets (name, value) VALUES ({}, {})", NAME, alphabet)
    )
    brands = await engine.run_querystring(QueryString("SELECT id FROM brands ORDER BY id"))
    # Two passes: a brand's new uid may be another's old one until that one has moved.
    await execute(engine, "UPDATE brands SET old_uid = uid, uid = '~' || CAST(id AS VARCHAR(30))")
    encoder = Sqids(alphabet=alphabet, min_length=8)
    for row in brands:
        brand_id = int(row["id"])
        await engine.run_querystring(
            QueryString(
                "UPDATE brands SET uid = {} WHERE id = {}", encoder.encode([brand_id]), brand_id
            )
        )
