"""``rk spider embed`` end to end vs the bare model: images per second, same run.

Rows, on the same images, batch size and model:

- ``model only``: ``session.run`` on batches preprocessed beforehand — the most any
  worker could reach with this model on this machine;
- ``embed_images``: the embedder plugin's own pipeline (decode + preprocess + run) on the
  same bytes already in memory — what is left once downloading and submitting are gone;
- ``spider embed``: one ``EmbedWorker`` round as ``rk spider embed`` runs it: lease the
  pending images from a real backend (``rk serve-backend`` in a subprocess, SQLite and
  file:// media), download them concurrently from its ``/media`` route, decode,
  preprocess, run the model, submit the vectors — timed from the lease to the last
  submit answer.

The model is the ViT-B/32-shaped random-weight CLIP that ``bench/embed_model.py`` builds
(its ``vit_b32``; needs the export extra), ``--quick`` the committed tiny CLIP, or
``--model DIR`` any export. Inputs are photo-like 256x384 JPEG thumbnails (what the
backend hands embed workers). The backend loads the same model (it checks dims and
serves search) and runs the neighbours job as vectors arrive, as it would in production
— on another machine there; here it shares the CPUs, so the ratio is a floor.

    .venv/bin/python -m bench.embed [--quick | --model DIR] [--export-to DIR]
        [--images 128] [--batch 32] [--concurrency 8] [--repeat 2]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import httpx
import numpy as np

from rk.core.api.lookups import open_storage
from rk.core.api.storage import StorageContext
from rk.core.runtime.client import BackendClient
from rk.core.runtime.embed_worker import EmbedWorker, LocalEncoder
from rk.plugins.clip_embed.embedder import ClipEmbedder, l2_normalise
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.tables import Article, Image
from tests.support.net import free_port

BENCH = Path(__file__).resolve().parent
SECRET = "bench-secret"


def embed_model() -> ModuleType:
    """``bench/embed_model.py`` (the CLIP helper's bench), for ``vit_b32`` and ``photo``."""
    spec = importlib.util.spec_from_file_location("embed_model", BENCH / "embed_model.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_backend(data: Path, model: Path, batch: int) -> tuple[subprocess.Popen[bytes], str]:
    """``rk serve-backend`` on a free port with this model; (process, base URL)."""
    port = free_port()
    config = data / "backend.yml"
    config.write_text(
        f"data_dir: {data}\nserver:\n  port: {port}\ningest:\n  secret: {SECRET}\n"
        f"vision:\n  model: {model}\n  batch: {batch}\n"
    )
    rk = Path(sys.executable).with_name("rk")
    log = (data / "backend.log").open("wb")
    proc = subprocess.Popen(
        [str(rk), "serve-backend", "--config", str(config)], stderr=log, stdout=log
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/schema/openapi.json", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
        if proc.poll() is not None:
            break
    proc.terminate()
    raise SystemExit(f"backend did not start; see {data / 'backend.log'}")


async def seed(data: Path, url: str, images: list[bytes]) -> None:
    """One published article whose looks are ``images``, stored in the backend's media dir."""
    engine = await connect(f"sqlite:///{data / 'rk.sqlite3'}")
    storage = open_storage(f"file://{data / 'media'}", StorageContext(backend_url=url))
    try:
        article = Article(source="vogue", show_key="bench/show", kind="runway", status="published")
        await article.save()
        for position, blob in enumerate(images, start=1):
            sha1 = hashlib.sha1(blob).hexdigest()
            key = f"runway/{sha1}.jpg"
            await storage.put(key, blob)
            await Image(
                article_id=article.id,
                role="look",
                position=position,
                kind="runway",
                key=key,
                sha1=sha1,
                size=len(blob),
            ).save()
    finally:
        await close(engine)


async def reset(data: Path) -> None:
    """Forget every vector so the next round embeds the same images again."""
    engine = await connect(f"sqlite:///{data / 'rk.sqlite3'}")
    try:
        for sql in (
            "DELETE FROM image_embeddings",
            "DELETE FROM image_embedding_failures",
            "DELETE FROM image_neighbors",
            "UPDATE images SET embed_leased_until = 0",
        ):
            await engine.run_ddl(sql)
    finally:
        await close(engine)


async def spider_round(
    url: str, embedder: ClipEmbedder, count: int, batch: int, concurrency: int
) -> tuple[float, int]:
    """(img/s, saved) of one worker round over every pending image."""
    async with (
        BackendClient(f"{url}/admin/internal/ingest", SECRET) as client,
        httpx.AsyncClient(timeout=60) as http,
    ):
        worker = EmbedWorker(
            client,
            LocalEncoder(embedder),
            http,
            kind="runway",
            limit=count,
            batch=batch,
            concurrency=concurrency,
        )
        start = time.perf_counter()
        stats = await worker.run_round()
        seconds = time.perf_counter() - start
    return stats.fetched / seconds, stats.saved


def model_only(embedder: ClipEmbedder, images: list[bytes]) -> float:
    """img/s of ``session.run`` on batches preprocessed beforehand."""
    batch = embedder.batch
    ready = [
        np.stack([embedder.preprocess(data) for data in images[i : i + batch]])
        for i in range(0, len(images), batch)
    ]
    start = time.perf_counter()
    for array in ready:
        l2_normalise(embedder.session.run([embedder.output_name], {embedder.input_name: array})[0])
    return len(images) / (time.perf_counter() - start)


def plugin_pipeline(embedder: ClipEmbedder, images: list[bytes]) -> float:
    """img/s of ``embed_images`` on bytes in memory, a batch per call like the worker."""
    start = time.perf_counter()
    for i in range(0, len(images), embedder.batch):
        embedder.embed_images(images[i : i + embedder.batch])
    return len(images) / (time.perf_counter() - start)


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the committed tiny CLIP")
    parser.add_argument("--model", help="an existing export directory to measure instead")
    parser.add_argument("--export-to", help="keep the random ViT-B/32 export here for reuse")
    parser.add_argument("--images", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8, help="downloads and decode threads")
    parser.add_argument("--repeat", type=int, default=2, help="interleaved runs; best counts")
    args = parser.parse_args()
    helper = embed_model()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.quick or args.model:
            model = Path(args.model) if args.model else helper.TINY_CLIP
        else:
            print("building and exporting a random ViT-B/32-shaped CLIP ...", file=sys.stderr)
            model = helper.vit_b32(Path(args.export_to) if args.export_to else work)
        data = work / "backend"
        data.mkdir()
        images = [helper.photo(256, 384, seed) for seed in range(args.images)]
        proc, url = start_backend(data, model, args.batch)
        try:
            asyncio.run(seed(data, url, images))
            embedder = ClipEmbedder(
                {"model": str(model), "batch": args.batch, "concurrency": args.concurrency}
            )
            embedder.embed_images(images[: args.batch])  # warm up the session and the pool
            best_model = best_plugin = best_spider = 0.0
            for _ in range(args.repeat):
                best_model = max(best_model, model_only(embedder, images))
                best_plugin = max(best_plugin, plugin_pipeline(embedder, images))
                rate, saved = asyncio.run(
                    spider_round(url, embedder, len(images), args.batch, args.concurrency)
                )
                if saved != len(images):
                    raise SystemExit(f"only {saved} of {len(images)} vectors were saved")
                best_spider = max(best_spider, rate)
                asyncio.run(reset(data))
            print(
                f"model {embedder.model_id} (dim {embedder.dim}), provider {embedder.provider}, "
                f"batch {args.batch}, {args.images} thumbnails 256x384, concurrency "
                f"{args.concurrency}, best of {args.repeat}, load average "
                f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
            )
            print(f"{'row':<34} {'img/s':>8}")
            print(f"{'model only (session.run)':<34} {best_model:>8.1f}")
            print(f"{'embed_images (plugin pipeline)':<34} {best_plugin:>8.1f}")
            print(f"{'rk spider embed, end to end':<34} {best_spider:>8.1f}")
            print(f"{'spider / model (target >= 0.85)':<34} {best_spider / best_model:>8.2f}")
            print(f"{'spider / plugin (worker overhead)':<34} {best_spider / best_plugin:>8.2f}")
            embedder.close()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
