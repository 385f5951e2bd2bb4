"""``rk spider embed --loop --metrics-port``: the worker's counters, scraped while it runs."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from pathlib import Path

import httpx

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import Image
from tests.integration.embeddings.backend import add_article, add_image, add_images, embed_backend
from tests.integration.embeddings.test_spider_embed import spider_config
from tests.integration.server.test_operations import samples, value
from tests.support.cli import RK
from tests.support.net import free_port


async def scrape_until_saved(port: int, saved: int, timeout_s: float = 60) -> dict:
    """The worker's metrics once it reports ``saved`` vectors."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    found: dict = {}
    async with httpx.AsyncClient() as client:
        while loop.time() < deadline:
            try:
                found = samples((await client.get(f"http://127.0.0.1:{port}/metrics")).text)
            except httpx.TransportError:
                found = {}
            if found.get(("rk_embed_images_total", frozenset({("outcome", "saved")}))) == saved:
                return found
            await asyncio.sleep(0.2)
    raise AssertionError(f"worker never reported {saved} saved: {found}")


async def test_embed_worker_serves_its_counters(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with embed_backend(tmp_path, plugin_manager) as backend:
        article = await add_article("show-a", "pending")
        await add_images(backend, article, list(range(5)))
        await add_image(backend, article, 9, b"not a jpeg")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
        proc = await asyncio.create_subprocess_exec(
            RK,
            *("spider", "embed", "--kind", "runway", "--loop", "--interval", "1"),
            *("--metrics-port", str(port), "-c", str(spider_config(tmp_path, backend))),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        try:
            found = await scrape_until_saved(port, 5)
        finally:
            proc.send_signal(signal.SIGINT)
            await asyncio.wait_for(proc.wait(), 30)
    assert value(found, "rk_embed_images_total", outcome="failed") == 1
    assert value(found, "rk_embed_errors_total", kind="undecodable") == 1
    assert value(found, "rk_embed_bytes_total") > 0
    assert value(found, "process_resident_memory_bytes") > 0


async def test_busy_metrics_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "c.yml"
    config.write_text("ingest: {endpoint: 'http://127.0.0.1:9/admin/internal/ingest', secret: s}\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = await asyncio.create_subprocess_exec(
            RK,
            *("spider", "embed", "--kind", "runway", "--endpoint", "http://127.0.0.1:9"),
            *("--metrics-port", str(port), "-c", str(config)),
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert err.decode().strip().startswith(f"error: cannot serve metrics on 127.0.0.1:{port}")


async def test_backend_counts_pending_capped_and_neighbours_lag(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as backend:
        model = backend.app.state.embed_runtime.embedder.model_id
        ids = list(await add_images(backend, await add_article("show-a", "pending"), [1, 2, 3]))
        capped, other = ids[0], ids[1]
        failures = "failures, last_error, updated_at) VALUES ({}, {}, {}, 'x', 0)"
        await Image.raw(
            f"INSERT INTO image_embedding_failures (image_id, model, {failures}", capped, model, 3
        )
        old = int(time.time()) - 3600
        await Image.raw(
            "INSERT INTO image_embeddings (image_id, model, kind, dim, vector, created_at,"
            " neighbours_at) VALUES ({}, 'another-model', 'runway', 1, {}, {}, 0)",
            other,
            b"\0\0\0\0",
            old,
        )
        found = samples((await backend.client.get("/metrics")).text)
    # ids[1] has a vector of another model only (which no neighbours job here places)
    assert value(found, "rk_embeddings_pending", model=model, kind="runway") == 2
    assert value(found, "rk_embeddings_failed_at_cap", model=model) == 1
    assert value(found, "rk_neighbours_lag_seconds") >= 3600
