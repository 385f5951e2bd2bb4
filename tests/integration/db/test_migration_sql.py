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
        "0001_initial": "d668e5e35db2e1017ffe68c0cac9e34ab55b09bca67cac59685712a4277ecd97",
        "0002_embedding_work": "6f28c489cc9f39716450e1999771684c4bd6af7de643b23e878ce4df2aeee291",
        "0003_neighbour_thresholds": "770066f99f23553629e8f43759ea7ea1062b367e96d71bcf0a992cf83bf0beb1",
        "0004_foreign_keys": "42b49e1220928e3b8b5e020f63a68b4b046d7d9932bfecde22cab5f2c9b50454",
        "0010_signed_requests": "8348eb58704efb42dea0de7157d9ddb3a862ba558ff9500ad0135053006f8bd5",
        "0011_bigint_ids": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "0015_admin_console": "e05251b9c8c37ef0c1fde6533c4beeb2062c2a64fbf511a05be7a636a230ddba",
        "0020_public_indexes": "c7513fe67831f4d9454fe204d5936cbb527a183862578cefe85a2501ca65c9c8",
        "0021_public_changes": "b6536fbe5b4c3760e7ce3a775b8d44a3a3d6bcd255d6f76ea4afa4181c972f62",
        "0025_detail_looks": "355c0ac03b42bd62ac7c3ae3521d60cc66ccff55c302f9a9bddc542a86a69624",
        "0026_season_tasks": "3799a2125fe70ed8610eb2080682c3385b3a7346f8ddb6dd52038ae48820fcb7",
        "0027_media_claims": "5433706d97ca0f95ed62f8bf2c075c1631f77ea9c6d1b840a63845309eb8d6e7",
        "0028_image_sizes": "8666e60b079229bbaed3e3298235a60b9befc283dcf6bf875cad726bd467ef28",
        "0030_vector_changes": "7c586ec6d1f4ef1623e87b8dcf6086fd8248103dc30c3e48bfd2577e848b4ee2",
        "0031_pgvector": "22e1ba0b7985bc2e1d77cf7093d6bbf92a3af3f3a19f58dd8c3d6b9e73e033d7",
        "0032_public_facet_counts": "8e1da0cc46e2954ea0721a1e3b19c71f7898ffdf2cedb20ef4bea46a629ee011",
        "0033_public_covering_indexes": "4d623311f29a4e6998b8a55560878f48c4ac63a07245d11c69a1c21dc6f8b45e",
        "0035_vector_clock": "de87395a221b3f08f63130b0584c2ce32081d2a9f510f84870a2ae9ea94ec29c",
        "0036_vector_deletions": "64c123a9eb2504b40030234fe4cb2765b03ef0316fc23c77d429b57b95617222",
        "0043_neighbour_writes": "9fe16ec8c97e0046e9d9856385e2dd8beca62a4ebcc91eab153d4afd4b7d9f7f",
        "0044_lists_after_deletes": "86285e85e1fcf194eaf2c6416e00c13cfc6ab3bd09f48524983c720d7eaada1c",
        "0045_ingest_jobs_one_brand_index": "f3e3f98810aaa1144ac8a1790a59d7960e2377018dad4b4d505e9c69342ae18f",
        "0046_unlinkable_urls": "e4e124b714d1817c71ff2264285cb9482f57feeac4af601a531b5e1c83ada83a",
        "0050_brand_uid_alphabet": "9825fd685641e6c40ebebddadad6100c53bee21df0527630980da0e4e5ca0daa",
        "0054_sign_in_counters": "2781ee75e8817acf3b4f6416a58ead71187bf294749a4f4806bd79de79f0fc57",
        "0058_search_photos": "5077ebc69c327c13501fcfe52b7c43a4e8fc96e9e7cdcb25df86de88022e0dba",
        "0060_image_colours": "bb272e4e5724ca81e0520acd8ba8e387543b096515171188e591c1b11d145d2c",
        "0062_host_budgets": "aa194d1dc9925bb8ddbcb442716c4c4204a8d7bfc26db0db81b8f2256df9d583",
        "0064_brand_name_key": "8be05835cc8cbcce83620e2a5c4ff30652302284ed3b234c14fbb76f5d1bca7c",
        "0065_decision_reasons": "150fb5f84ffc99bc52b28b46105023e941cbca37d073fd241227313ec39caab3",
        "0068_image_renditions": "0190dadeb7c9fb82c25e40c9a67f8b167fea70a89f75ec1ff69312ce984635e5",
        "0070_image_tags": "f67dd4cd7a054deb62d548a0189ee7d62c501862d05f52fb9f495b2870fbd94f",
        "0071_image_tag_runs": "c68a3486c1e6e06931c1cf7197a83bc58bb5ad041d4f311895eec1aef606c6d5",
        "0074_ingest_jobs_partial_indexes": "ba442fb5a65c5c6c13156fffb623aeecd873fb0d5478c1d6188d6b1f6d5e5cb7",
        "0076_boards": "7139e0d07d0af6b5c4bd8d32fd44e1fb8490c8a74e79cc9588ab98761bd54a09",
    },
    "postgres": {
        "0001_initial": "145dd7199e73703a4f27c01f27e82832e6a1c7f5821f1273a986176783835158",
        "0002_embedding_work": "6f28c489cc9f39716450e1999771684c4bd6af7de643b23e878ce4df2aeee291",
        "0003_neighbour_thresholds": "770066f99f23553629e8f43759ea7ea1062b367e96d71bcf0a992cf83bf0beb1",
        "0004_foreign_keys": "e144407a193072249b55bd22d93652d17d4833a8f3a98bed092d963b993e3394",
        "0010_signed_requests": "990f8d00a68cd19e92e5b05e76ee1ab920d330f5bbf54835cb9998aec45b8407",
        "0011_bigint_ids": "6eeeee2e29915be55a0d485baffbefe7d4a32bb6f9fe64ed25af90840b21771c",
        "0015_admin_console": "7f897fc1774c26f751708ff4df9c9aa20078c07649aa98fbc376762794ee063e",
        "0020_public_indexes": "c7513fe67831f4d9454fe204d5936cbb527a183862578cefe85a2501ca65c9c8",
        "0021_public_changes": "38f37d9300e9b56e7067e60c5818887f9b3e7b962e08c94e854293d990a24568",
        "0025_detail_looks": "355c0ac03b42bd62ac7c3ae3521d60cc66ccff55c302f9a9bddc542a86a69624",
        "0026_season_tasks": "3799a2125fe70ed8610eb2080682c3385b3a7346f8ddb6dd52038ae48820fcb7",
        "0027_media_claims": "e9ae12c4269eacef2336f53300777175495434ae1e64cdb46d431b6b8fc8cc08",
        "0028_image_sizes": "8666e60b079229bbaed3e3298235a60b9befc283dcf6bf875cad726bd467ef28",
        "0030_vector_changes": "14fda63113c62ec232cb08b7114268d6175349b97cda6d3376c722adb8434155",
        "0031_pgvector": "089d6092a556f65c572480ba9496c18bc796620a2cc0ed1f30d80ad200b79764",
        "0032_public_facet_counts": "c11a0480501f4096e99da6f6d17b2d5e7437b3220102cf5fcbac24b333ab2154",
        "0033_public_covering_indexes": "ad7047dc5cf7f6835dcb84a8df24cf416511d8db6e90571083fb3da1edce9325",
        "0035_vector_clock": "31a58e1f32a8c0d58e1f4088006651230ece6c608a0d025bf275cabb85849e9e",
        "0036_vector_deletions": "e597c5106081801c9fc52d013314059303476804efd2da17699592893051101c",
        "0043_neighbour_writes": "ee9a8a1160807039baa6ee3552e9e475f3ba5505fca700e8dbe600b6d87141b5",
        "0044_lists_after_deletes": "32e443d778700829f48b29b35421dee55eb1ea552a14a606efc78ac3becdc563",
        "0045_ingest_jobs_one_brand_index": "f3e3f98810aaa1144ac8a1790a59d7960e2377018dad4b4d505e9c69342ae18f",
        "0046_unlinkable_urls": "223dfadb341621119c11ee0a65b452c27b2e980ed249cd4eb765b5cdb5b89a73",
        "0050_brand_uid_alphabet": "7e62e52a3687f6277fd2cbf0b26c56cc94937d75251548d1cdf2296cdfe83eea",
        "0054_sign_in_counters": "816df71a886d721edcb23e70cfd304a4f359ec41864ebc486e4394634290ef30",
        "0058_search_photos": "c793e26ccf5288a5e1215d7b75ee84326cb692c23fffc001ddc553dbcc03d9e1",
        "0060_image_colours": "96a38389c2eb4045b4e2203e8f0190dff3a0a2846cf2e20fe612cdc626c52480",
        "0062_host_budgets": "1d8d88996e260e2f4238406a9007957d78499d93879e03289aa8d22b9949ea36",
        "0064_brand_name_key": "8be05835cc8cbcce83620e2a5c4ff30652302284ed3b234c14fbb76f5d1bca7c",
        "0065_decision_reasons": "150fb5f84ffc99bc52b28b46105023e941cbca37d073fd241227313ec39caab3",
        "0068_image_renditions": "b42fd01b3f061aecd608ccddae6506a5a42baa80de56cd90340c077a9deee1a3",
        "0070_image_tags": "89f44be68d7bd53a19c9bfcfbbd23785add81de33eb446041431be31582884e5",
        "0071_image_tag_runs": "ebcaed02571829db59ec5853eb30decbe1ff9b268d6bf3fd84e0c34f568487dd",
        "0074_ingest_jobs_partial_indexes": "ba442fb5a65c5c6c13156fffb623aeecd873fb0d5478c1d6188d6b1f6d5e5cb7",
        "0076_boards": "2aeafe0e0e24c99afc63d5cc10935ac53c7edacf8ec44f78a39e3459702e9b89",
    },
}
"""Per engine, per migration id: SHA-256 of its statements and queries, one a line."""


class Recorder:
    """Keeps every statement and query (not its values) ``engine`` is given, as it passes them on."""

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
            digests[migration.id] = hashlib.sha256(text).hexdigest()
        return digests
    finally:
        await db.close()


async def test_each_migration_runs_the_sql_it_always_ran(any_dsn: str) -> None:
    engine = "sqlite" if any_dsn.startswith("sqlite") else "postgres"
    pinned = DIGESTS[engine]
    found = await statement_digests(any_dsn)
    assert {migration: found.get(migration) for migration in pinned} == pinned
