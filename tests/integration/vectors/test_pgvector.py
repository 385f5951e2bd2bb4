"""pgvector specifics: the migration enables it, a server without it falls back to exact
with one line saying what to install, an existing install moves over while serving, and
unpublished candidates crowding the top never shrink an answer."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rk.core.api.errors import RkError
from rk.core.api.plugins import RkPluginManager
from rk.core.api.vector_indexes import Placed
from rk.core.config import VectorSettings
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.jobs.job_lock import JobLease
from rk.server.similarity.vectors.choose import open_vector_index
from rk.server.similarity.vectors.exact import ExactIndex
from rk.server.similarity.vectors.pg_build import build_memory_mb
from rk.server.similarity.vectors.pg_spaces import spaces
from rk.server.similarity.vectors.pgvector import PgvectorIndex
from tests.integration.embeddings import seed
from tests.integration.vectors.helpers import DIM, MODEL, brute, bulk, clustered, save, show
from tests.support.cli import rk


async def test_the_migration_enables_the_extension(pgvector_dsn: str) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        found = await rows("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert found == [{"extversion": "0.6.2"}]
    finally:
        await close(engine)


async def test_without_pgvector_startup_says_what_to_install_and_uses_exact(
    pg_dsn: str, plugin_manager: RkPluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    await migrate(pg_dsn)  # Debian's PostgreSQL here has no pgvector: the migration goes on
    engine = await connect(pg_dsn)
    try:
        [row] = await rows("SELECT current_setting('server_version_num')::int / 10000 AS major")
        with caplog.at_level(logging.WARNING, logger="rk.server"):
            index = await open_vector_index(VectorSettings(), plugin_manager)
        assert isinstance(index, ExactIndex)
        [line] = [r.getMessage() for r in caplog.records if r.name == "rk.server"]
        assert f"apt install postgresql-{row['major']}-pgvector" in line
        assert line.endswith("using the exact index")
        assert "\n" not in line
    finally:
        await close(engine)


async def test_rk_vectors_status_without_pgvector_names_the_exact_index(pg_dsn: str) -> None:
    await migrate(pg_dsn)
    done = rk("vectors", "status", env={"RK_DATABASE": pg_dsn}, timeout=300)
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    assert line.startswith("index: exact (vectors.index asks for pgvector, unavailable: ")
    assert "index: pgvector" not in done.stdout


async def test_on_pgvector_auto_chooses_it(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        index = await open_vector_index(VectorSettings(), plugin_manager)
        assert isinstance(index, PgvectorIndex)
        await index.close()
        exact = await open_vector_index(VectorSettings(index="exact"), plugin_manager)
        assert isinstance(exact, ExactIndex)
    finally:
        await close(engine)


async def test_saved_vectors_reach_the_space_bit_for_bit(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    """What ``POST embeddings`` stores is what pgvector holds, float32 for float32: new rows
    and rewritten ones, a subnormal and a negative zero among them."""
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    rng = np.random.default_rng(13)
    try:
        article = await seed.article("exact")
        images = await seed.images(article, 40)
        first = clustered(rng, 40)
        first[10, :2] = (1e-42, -0.0)
        await save(plugin_manager, images, first)
        await save(plugin_manager, images[:10], clustered(rng, 10))  # rewritten in place
        [space] = await spaces(MODEL)
        found = await rows(
            "SELECT e.image_id, e.vector, v.embedding::real[] AS copied FROM image_embeddings e"
            f" JOIN {space.table} v ON v.embedding_id = e.id ORDER BY e.image_id"
        )
        assert [row["image_id"] for row in found] == images
        for row in found:
            assert np.asarray(row["copied"], dtype="<f4").tobytes() == bytes(row["vector"])
        edge = np.frombuffer(bytes(found[10]["vector"]), dtype="<f4")
        assert 0 < edge[0] < np.finfo(np.float32).tiny
        assert edge[1] == 0
        assert np.signbit(edge[1])
    finally:
        await close(engine)


async def test_an_existing_install_moves_over_while_search_keeps_answering(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    rng = np.random.default_rng(7)
    try:
        await bulk(rng, 80)
        index = PgvectorIndex(VectorSettings(reindex_batch=16))
        [(space, count)] = await index.prepare()
        assert count == 80
        assert not space.ready
        [query] = clustered(rng, 1)
        want = await brute(query, 10)
        # not ready: the exact index answers, and holds the vectors meanwhile
        got = await index.search(MODEL, query, 10)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert index.nbytes() > 0
        # a save while the space fills is copied by the save itself
        await show(plugin_manager, rng, "during", 5)
        assert await index.open() is None  # starts the background fill
        assert index._backfill is not None
        await index._backfill
        [space] = await spaces(MODEL)
        assert space.ready
        [n] = await rows(f"SELECT COUNT(*) AS n FROM {space.table}")
        assert n["n"] == 85
        want = await brute(query, 10)
        got = await index.search(MODEL, query, 10)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert index.nbytes() == 0  # served by pgvector, the exact copy dropped
        await index.close()
    finally:
        await close(engine)


async def test_unpublished_candidates_crowding_the_top_never_shrink_an_answer(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    rng = np.random.default_rng(8)
    try:
        [query] = clustered(rng, 1)
        near = np.repeat(query[None, :], 300, axis=0) + 0.01 * rng.standard_normal((300, DIM))
        hidden = await seed.article("hidden", status="pending")
        hidden_images = await seed.images(hidden, 300)
        await save(plugin_manager, hidden_images, near.astype(np.float32))
        await show(plugin_manager, rng, "shown", 40)
        index = PgvectorIndex(VectorSettings(ef_search=40))
        got = await index.search(MODEL, query, 20)
        assert [i for i, _ in got] == [i for i, _ in await brute(query, 20)]
    finally:
        await close(engine)


async def test_rk_vectors_reindex_and_status(pgvector_dsn: str) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        await bulk(np.random.default_rng(9), 50)
    finally:
        await close(engine)
    env = {"RK_DATABASE": pgvector_dsn}
    before = rk("vectors", "status", env=env, timeout=300)
    assert before.returncode == 0, before.stderr
    assert "index: pgvector" in before.stdout
    assert f"{MODEL} runway {DIM}-d: 50 vectors, waiting" in before.stdout
    done = rk("vectors", "reindex", "--model", MODEL, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"pgvector index rebuilt: 50 vectors of model {MODEL}")
    after = rk("vectors", "status", env=env, timeout=300)
    assert "50 vectors, ready" in after.stdout
    again = rk("vectors", "reindex", env=env, timeout=300)  # ready spaces: REINDEX CONCURRENTLY
    assert again.returncode == 0, again.stderr
    bad = rk("vectors", "reindex", env={**env, "RK_VECTORS_INDEX": "faiss"}, timeout=300)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "error: vectors.index: no vector index named 'faiss'; available: exact, pgvector"
    ]


async def test_reindex_takes_over_from_the_background_fill_of_its_own_process(
    pgvector_dsn: str,
) -> None:
    """`rk vectors reindex` opens the index (which starts a fill) then rebuilds: the two
    never build an index side by side, which deadlocks in PostgreSQL."""
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        await bulk(np.random.default_rng(10), 60)
        for _ in range(3):
            index = PgvectorIndex(VectorSettings(reindex_batch=8))
            assert await index.open() is None
            try:
                assert await index.reindex(MODEL) == 60
            finally:
                await index.close()
        [space] = await spaces(MODEL)
        assert space.ready
        [held] = await rows("SELECT holder, until FROM job_locks WHERE name = 'pgvector-backfill'")
        assert held["until"] == 0  # released
    finally:
        await close(engine)


async def test_reindex_while_another_process_fills_says_so_and_changes_nothing(
    pgvector_dsn: str,
) -> None:
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    try:
        await bulk(np.random.default_rng(11), 20)
        other = JobLease("pgvector-backfill", "backend-on-another-host", 60)
        assert await other.acquire()
        index = PgvectorIndex(VectorSettings())
        with pytest.raises(RkError, match="^another process is filling the pgvector tables"):
            await index.reindex(MODEL)
        assert [s.ready for s in await spaces(MODEL)] in ([], [False])
        assert await other.renew()  # still the other process's
    finally:
        await close(engine)


async def _place(dsn: str, pool_size: int, ids: list[int], vectors: np.ndarray) -> Placed:
    """Placement through a process whose pool has ``pool_size`` connections."""
    engine = await connect(dsn, pool_size=pool_size)
    try:
        return await PgvectorIndex(VectorSettings(ef_search=40)).place(
            MODEL, "runway", np.array(ids), vectors, 8
        )
    finally:
        await close(engine)


async def test_concurrent_placement_gives_the_serial_and_the_exact_lists(
    pgvector_dsn: str, plugin_manager: RkPluginManager
) -> None:
    """A pool of 3 leaves one placement connection (serial); the default pool, several."""
    await migrate(pgvector_dsn)
    engine = await connect(pgvector_dsn)
    rng = np.random.default_rng(12)
    try:
        await show(plugin_manager, rng, "old", 300)
        await show(plugin_manager, rng, "hidden", 60, status="pending")  # placed among too
        _, new = await show(plugin_manager, rng, "new", 40)
        found = await rows(
            "SELECT image_id, vector FROM image_embeddings WHERE image_id = ANY({}::bigint[])"
            " ORDER BY image_id",
            new,
        )
        vectors = np.stack([np.frombuffer(r["vector"], "<f4") for r in found])
        want = {
            i: [n for n, _ in await brute(v, 9, published=False) if n != i][:8]
            for i, v in zip(new, vectors, strict=True)
        }
    finally:
        await close(engine)
    serial = await _place(pgvector_dsn, 3, new, vectors)
    concurrent = await _place(pgvector_dsn, 0, new, vectors)
    assert concurrent.lists == serial.lists
    assert concurrent.reverse == serial.reverse
    assert {i: [n for n, _ in scored] for i, scored in concurrent.lists.items()} == want


def test_build_memory_holds_the_graph_unless_set() -> None:
    assert build_memory_mb(1_000_000, 512, 0) == pytest.approx(6_000, rel=0.05)
    assert build_memory_mb(100, 512, 0) == 64
    assert build_memory_mb(10_000_000, 512, 0) == 8192
    assert build_memory_mb(1_000_000, 512, 1024) == 1024
