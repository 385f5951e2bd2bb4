"""``rk spider embed`` as a subprocess against a real backend serving images from /media."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
import pytest
import uvicorn

from rk.core.api.plugins import RkPluginManager
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.plugins.clip_embed.service import create_app
from rk.server.platform.db.tables import Image, ImageEmbedding, ImageEmbeddingFailure
from tests.integration.embeddings.backend import (
    TINY_CLIP,
    add_article,
    add_image,
    add_images,
    embed_backend,
    picture,
)
from tests.integration.server.helpers import SECRET, Backend
from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port

LINE = re.compile(
    r"^\[embed\] runway: fetched (\d+) → saved (\d+), failed (\d+) \(remaining (\d+)\)$"
)


@pytest.fixture(scope="module")
def reference() -> ClipEmbedder:
    return ClipEmbedder({"model": str(TINY_CLIP), "batch": 8, "concurrency": 1})


def spider_config(tmp_path: Path, backend: Backend, endpoint: str = "") -> Path:
    """The GPU machine's config: where the backend is, the secret, the model."""
    path = tmp_path / "spider.yml"
    path.write_text(
        f"data_dir: {tmp_path / 'spider-data'}\n"
        "ingest:\n"
        f"  endpoint: {backend.url}/admin/internal/ingest\n"
        f"  secret: {SECRET}\n"
        "vision:\n"
        f"  model: {TINY_CLIP}\n"
        f"  endpoint: '{endpoint}'\n"
        "  batch: 4\n"
    )
    return path


async def rk(*args: str) -> tuple[int, str, str]:
    """Run ``rk ARGS`` without blocking the event loop the backend serves from."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    proc = await asyncio.create_subprocess_exec(
        RK, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def seed_round(backend: Backend) -> tuple[dict[int, bytes], int, int]:
    """12 good images, one that is not an image, one whose object is missing."""
    article = await add_article("show-a", "pending")
    images = await add_images(backend, article, list(range(12)))
    junk = await add_image(backend, article, 13, b"not a jpeg")
    missing = await add_image(backend, article, 14, picture(101))
    row = await Image.select(Image.key).where(Image.id == missing).first()
    await backend.storage.delete(row["key"])
    return images, junk, missing


async def check_saved(
    reference: ClipEmbedder, images: dict[int, bytes], junk: int, missing: int
) -> None:
    rows = {r["image_id"]: r for r in await ImageEmbedding.select()}
    assert set(rows) == set(images)
    ids = sorted(images)
    expected = reference.embed_images([images[i] for i in ids]).vectors
    for image_id, vector in zip(ids, expected, strict=True):
        stored = np.frombuffer(rows[image_id]["vector"], dtype="<f4")
        assert stored.tolist() == pytest.approx(vector, abs=1e-5)
    failures = {r["image_id"]: r["last_error"] for r in await ImageEmbeddingFailure.select()}
    assert failures == {junk: "not a decodable image", missing: "download: HTTP 404"}


@pytest.fixture
async def backend(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as running:
        yield running


async def test_one_round_in_process_saves_vectors_and_reports_failures(
    backend: Backend, tmp_path: Path, reference: ClipEmbedder
) -> None:
    images, junk, missing = await seed_round(backend)
    config = spider_config(tmp_path, backend)
    code, out, err = await rk(
        "spider",
        "embed",
        "--kind",
        "runway",
        "--limit",
        "100",
        "--concurrency",
        "3",
        "-c",
        str(config),
    )
    assert code == 0, err
    [line] = out.splitlines()
    assert LINE.match(line).groups() == ("14", "12", "2", "0")
    await check_saved(reference, images, junk, missing)
    # nothing left: the next round fetches nothing
    code, out, _ = await rk("spider", "embed", "--kind", "runway", "-c", str(config))
    assert out.strip() == "[embed] runway: fetched 0 → saved 0, failed 0 (remaining 0)"


@asynccontextmanager
async def vision_service() -> AsyncIterator[str]:
    """``rk vision serve``'s app with the tiny model, on 127.0.0.1."""
    embedder = ClipEmbedder({"model": str(TINY_CLIP), "batch": 8, "concurrency": 1})
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(embedder, max_body_bytes=8 << 20),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    task = asyncio.create_task(server.serve())
    await asyncio.to_thread(wait_for_port, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        embedder.close()


async def test_rounds_through_the_vision_service_in_small_limits(
    tmp_path: Path, plugin_manager: RkPluginManager, reference: ClipEmbedder
) -> None:
    async with embed_backend(tmp_path, plugin_manager) as backend, vision_service() as endpoint:
        images, junk, missing = await seed_round(backend)
        config = spider_config(tmp_path, backend, endpoint)
        code, out, err = await rk(
            "spider", "embed", "--kind", "runway", "--limit", "5", "--batch", "2", "-c", str(config)
        )
        assert code == 0, err
        assert LINE.match(out.strip()).groups() == ("5", "5", "0", "9")
        code, out, err = await rk(
            "spider", "embed", "--kind", "runway", "--limit", "100", "-c", str(config)
        )
        assert code == 0, err
        assert LINE.match(out.strip()).groups() == ("9", "7", "2", "0")
        await check_saved(reference, images, junk, missing)


async def test_a_down_vision_service_burns_no_attempts(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with embed_backend(tmp_path, plugin_manager) as backend:
        await seed_round(backend)
        config = spider_config(tmp_path, backend, f"http://127.0.0.1:{free_port()}")
        code, _, err = await rk("spider", "embed", "--kind", "runway", "-c", str(config))
        assert code == 2
        [line] = err.strip().splitlines()
        assert line.startswith("error: vision service http://127.0.0.1:")
        assert await ImageEmbeddingFailure.count().where(ImageEmbeddingFailure.failures > 0) == 0


async def test_loop_stops_after_the_round_in_hand_on_ctrl_c(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with embed_backend(tmp_path, plugin_manager) as backend:
        await add_images(backend, await add_article("show-a", "pending"), list(range(6)))
        config = spider_config(tmp_path, backend)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
        proc = await asyncio.create_subprocess_exec(
            RK,
            "spider",
            "embed",
            "--kind",
            "runway",
            "--limit",
            "3",
            "--loop",
            "--interval",
            "1",
            "-c",
            str(config),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert proc.stdout is not None
        lines = [
            (await asyncio.wait_for(proc.stdout.readline(), 60)).decode().strip() for _ in range(3)
        ]
        assert [LINE.match(line).groups()[:2] for line in lines] == [
            ("3", "3"),
            ("3", "3"),
            ("0", "0"),
        ]
        proc.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0
        assert "finishing the round in hand" in err.decode()
        assert await ImageEmbedding.count() == 6


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--kind", "Runway!"], "is not an image kind"),
        (["--kind", "runway", "--interval", "0.1", "--loop"], "--interval 0.1 is too short"),
    ],
)
async def test_bad_input_is_one_line_and_exit_2(args: list[str], error: str) -> None:
    code, _, err = await rk("spider", "embed", *args)
    assert code == 2
    [line] = err.strip().splitlines()
    assert error in line


async def test_without_ingest_settings_it_says_what_to_set(tmp_path: Path) -> None:
    code, _, err = await rk("spider", "embed", "--kind", "runway")
    assert code == 2
    [line] = err.strip().splitlines()
    assert "ingest" in line
