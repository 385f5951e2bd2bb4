"""Every migration runs the same SQL forever: a digest of its statements on each engine.

Migrations are history (databases remember which ids they applied), so a refactoring of
how they are written must leave what they run byte for byte the same. A migration is
checked once its digests are added here; a changed digest of an old one is a bug.
"""

from __future__ import annotations

import hashlib
from typing import Any

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.server.platform.db.database import open_database
from rk.server.platform.db.migrate import discover
from rk.server.platform.db.piccolo_engines import engine_for_database

DIGESTS: dict[str, dict[str, str]] = {
    "sqlite": {
        "0001_initial": "d668e5e35db2e1017ffe68c0cac9e34a",
        "0002_embedding_work": "6f28c489cc9f39716450e1999771684c",
        "0003_neighbour_thresholds": "770066f99f23553629e8f43759ea7ea1",
        "0004_foreign_keys": "42b49e1220928e3b8b5e020f63a68b4b",
        "0010_signed_requests": "8348eb58704efb42dea0de7157d9ddb3",
        "0011_bigint_ids": "e3b0c44298fc1c149afbf4c8996fb924",
        "0015_admin_console": "e05251b9c8c37ef0c1fde6533c4beeb2",
        "0020_public_indexes": "c7513fe67831f4d9454fe204d5936cbb",
        "0021_public_changes": "b6536fbe5b4c3760e7ce3a775b8d44a3",
        "0025_detail_looks": "355c0ac03b42bd62ac7c3ae3521d60cc",
        "0026_season_tasks": "3799a2125fe70ed8610eb2080682c338",
        "0027_media_claims": "5433706d97ca0f95ed62f8bf2c075c16",
        "0028_image_sizes": "8666e60b079229bbaed3e3298235a60b",
        "0030_vector_changes": "7c586ec6d1f4ef1623e87b8dcf6086fd",
        "0031_pgvector": "22e1ba0b7985bc2e1d77cf7093d6bbf9",
        "0032_public_facet_counts": "8e1da0cc46e2954ea0721a1e3b19c71f",
        "0033_public_covering_indexes": "4d623311f29a4e6998b8a55560878f48",
        "0035_vector_clock": "de87395a221b3f08f63130b0584c2ce3",
        "0036_vector_deletions": "64c123a9eb2504b40030234fe4cb2765",
        "0043_neighbour_writes": "9fe16ec8c97e0046e9d9856385e2dd8b",
        "0044_lists_after_deletes": "86285e85e1fcf194eaf2c6416e00c13c",
        "0045_ingest_jobs_one_brand_index": "f3e3f98810aaa1144ac8a1790a59d796",
        "0046_unlinkable_urls": "e4e124b714d1817c71ff2264285cb948",
        "0050_brand_uid_alphabet": "9825fd685641e6c40ebebddadad6100c",
        "0054_sign_in_counters": "2781ee75e8817acf3b4f6416a58ead71",
        "0058_search_photos": "5077ebc69c327c13501fcfe52b7c43a4",
        "0060_image_colours": "bb272e4e5724ca81e0520acd8ba8e387",
        "0062_host_budgets": "aa194d1dc9925bb8ddbcb442716c4c42",
        "0064_brand_name_key": "8be05835cc8cbcce83620e2a5c4ff306",
        "0065_decision_reasons": "150fb5f84ffc99bc52b28b46105023e9",
        "0068_image_renditions": "0190dadeb7c9fb82c25e40c9a67f8b16",
        "0070_image_tags": "f67dd4cd7a054deb62d548a0189ee7d6",
        "0071_image_tag_runs": "c68a3486c1e6e06931c1cf7197a83bc5",
        "0074_ingest_jobs_partial_indexes": "ba442fb5a65c5c6c13156fffb623aeec",
        "0076_boards": "7139e0d07d0af6b5c4bd8d32fd44e1fb",
    },
    "postgres": {
        "0001_initial": "145dd7199e73703a4f27c01f27e82832",
        "0002_embedding_work": "6f28c489cc9f39716450e1999771684c",
        "0003_neighbour_thresholds": "770066f99f23553629e8f43759ea7ea1",
        "0004_foreign_keys": "e144407a193072249b55bd22d93652d1",
        "0010_signed_requests": "990f8d00a68cd19e92e5b05e76ee1ab9",
        "0011_bigint_ids": "6eeeee2e29915be55a0d485baffbefe7",
        "0015_admin_console": "7f897fc1774c26f751708ff4df9c9aa2",
        "0020_public_indexes": "c7513fe67831f4d9454fe204d5936cbb",
        "0021_public_changes": "38f37d9300e9b56e7067e60c5818887f",
        "0025_detail_looks": "355c0ac03b42bd62ac7c3ae3521d60cc",
        "0026_season_tasks": "3799a2125fe70ed8610eb2080682c338",
        "0027_media_claims": "e9ae12c4269eacef2336f53300777175",
        "0028_image_sizes": "8666e60b079229bbaed3e3298235a60b",
        "0030_vector_changes": "14fda63113c62ec232cb08b7114268d6",
        "0031_pgvector": "089d6092a556f65c572480ba9496c18b",
        "0032_public_facet_counts": "c11a0480501f4096e99da6f6d17b2d5e",
        "0033_public_covering_indexes": "ad7047dc5cf7f6835dcb84a8df24cf41",
        "0035_vector_clock": "31a58e1f32a8c0d58e1f408800665123",
        "0036_vector_deletions": "e597c5106081801c9fc52d0133140593",
        "0043_neighbour_writes": "ee9a8a1160807039baa6ee3552e9e475",
        "0044_lists_after_deletes": "32e443d778700829f48b29b35421dee5",
        "0045_ingest_jobs_one_brand_index": "f3e3f98810aaa1144ac8a1790a59d796",
        "0046_unlinkable_urls": "223dfadb341621119c11ee0a65b452c2",
        "0050_brand_uid_alphabet": "7e62e52a3687f6277fd2cbf0b26c56cc",
        "0054_sign_in_counters": "816df71a886d721edcb23e70cfd304a4",
        "0058_search_photos": "c793e26ccf5288a5e1215d7b75ee8432",
        "0060_image_colours": "96a38389c2eb4045b4e2203e8f0190df",
        "0062_host_budgets": "1d8d88996e260e2f4238406a9007957d",
        "0064_brand_name_key": "8be05835cc8cbcce83620e2a5c4ff306",
        "0065_decision_reasons": "150fb5f84ffc99bc52b28b46105023e9",
        "0068_image_renditions": "b42fd01b3f061aecd608ccddae6506a5",
        "0070_image_tags": "89f44be68d7bd53a19c9bfcfbbd23785",
        "0071_image_tag_runs": "ebcaed02571829db59ec5853eb30decb",
        "0074_ingest_jobs_partial_indexes": "ba442fb5a65c5c6c13156fffb623aeec",
        "0076_boards": "2aeafe0e0e24c99afc63d5cc10935ac5",
    },
}
"""Per engine, per migration id: SHA-256 (its first 128 bits) of its statements and
queries, one a line."""


class Recorder:
    """Keeps each statement and query (not its values) ``engine`` is given, and passes it on."""

    def __init__(self, engine: Engine) -> None:
        self.sql: list[str] = []
        run_ddl, run_querystring = engine.run_ddl, engine.run_querystring

        async def ddl(sql: str, *args: Any, **kwargs: Any) -> Any:
            self.sql.append(sql)
            return await run_ddl(sql, *args, **kwargs)

        async def query(querystring: QueryString, *args: Any, **kwargs: Any) -> Any:
            sql, _values = querystring.compile_string(engine_type=engine.engine_type)
            self.sql.append(sql)
            return await run_querystring(querystring, *args, **kwargs)

        engine.run_ddl = ddl  # type: ignore[method-assign]
        engine.run_querystring = query  # type: ignore[method-assign]


async def statement_digests(dsn: str) -> dict[str, str]:
    """Each migration's id and the digest of what it runs on a fresh database at ``dsn``."""
    db = await open_database(dsn, pool_size=1, readers=1)
    try:
        engine = engine_for_database(db)
        recorder = Recorder(engine)
        digests = {}
        for migration in discover():
            recorder.sql.clear()
            async with engine.transaction():
                await migration.forwards(engine)
            text = "\n".join(recorder.sql).encode()
            digests[migration.id] = hashlib.sha256(text).hexdigest()[:32]
        return digests
    finally:
        await db.close()


async def test_each_migration_runs_the_sql_it_always_ran(any_dsn: str) -> None:
    engine = "sqlite" if any_dsn.startswith("sqlite") else "postgres"
    pinned = DIGESTS[engine]
    found = await statement_digests(any_dsn)
    assert {migration: found.get(migration) for migration in pinned} == pinned
