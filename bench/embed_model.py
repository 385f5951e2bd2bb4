"""CLIP image embedding throughput: rk's ``embed_images`` pipeline vs the bare model.

Rows, all on the same images, batch size and session, in the same run:

- ``model only``: ``session.run`` on batches preprocessed beforehand (the baseline: the
  most any pipeline could reach);
- ``serial``: decode + preprocess a batch, then run it, one after the other;
- ``pipeline``: ``ClipEmbedder.embed_images`` (thread pool preprocessing one batch ahead
  while the model runs the current one).

The model is ViT-B/32-shaped (hidden 768, 12 layers, 224 px, patch 32, projection 512)
with random weights, built with transformers and exported by rk's own exporter to a
temporary directory (~350 MB, deleted afterwards; needs the export extra). ``--quick``
uses the committed tiny CLIP instead. Inputs are photo-like JPEGs at two sizes: a
thumbnail (what the embed worker downloads) and a full-size runway photo.

    .venv/bin/python -m bench.embed_model [--quick | --model DIR] [--export-to DIR]
        [--images 96] [--batch 32] [--concurrency 8] [--repeat 2]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
from rk.plugins.clip_embed.embedder import ClipEmbedder, l2_normalise  # noqa: E402
from tests.models.samples import TINY_CLIP  # noqa: E402

SIZES = {"thumb 256x384": (256, 384), "photo 1280x1920": (1280, 1920)}


def photo(width: int, height: int, seed: int) -> bytes:
    """A JPEG with photo-like entropy (gradients plus noise), quality 90."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 180, width)[None, :, None] + np.linspace(0, 60, height)[:, None, None]
    pixels = ramp + rng.normal(0, 10, (height, width, 3))
    buf = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def vit_b32(directory: Path) -> Path:
    """A random ViT-B/32-shaped CLIP exported (image tower only) into ``directory``."""
    import torch
    from transformers import CLIPConfig, CLIPModel

    from rk.plugins.clip_embed.export import export_clip

    config = CLIPConfig(
        projection_dim=512,
        vision_config={
            "hidden_size": 768,
            "intermediate_size": 3072,
            "num_hidden_layers": 12,
            "num_attention_heads": 12,
            "image_size": 224,
            "patch_size": 32,
        },
        text_config={"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1},
    )
    torch.manual_seed(0)
    source = directory / "source"
    CLIPModel(config).eval().save_pretrained(source)
    out = directory / "vit-b32"
    export_clip(str(source), out, model_id="bench/vit-b32-random", text=False)
    return out


def timed(step: Callable[[], object], images: int) -> float:
    """Images per second of one call of ``step``."""
    start = time.perf_counter()
    step()
    return images / (time.perf_counter() - start)


def measure(embedder: ClipEmbedder, images: list[bytes], repeat: int) -> dict[str, float]:
    """img/s of the three rows for one set of images: best of ``repeat`` interleaved runs."""
    batch = embedder.batch
    session, feed_name, out_name = embedder.session, embedder.input_name, embedder.output_name
    ready = [
        np.stack([embedder.preprocess(data) for data in images[i : i + batch]])
        for i in range(0, len(images), batch)
    ]

    def model_only() -> None:
        for array in ready:
            l2_normalise(session.run([out_name], {feed_name: array})[0])

    def serial() -> None:
        for i in range(0, len(images), batch):
            array = np.stack([embedder.preprocess(data) for data in images[i : i + batch]])
            l2_normalise(session.run([out_name], {feed_name: array})[0])

    def pipeline() -> None:
        embedder.embed_images(images)

    embedder.embed_images(images[:batch])  # warm up the session and the pool
    rows = {"model only": model_only, "serial": serial, "pipeline": pipeline}
    best = dict.fromkeys(rows, 0.0)
    for _ in range(repeat):
        for name, step in rows.items():
            best[name] = max(best[name], timed(step, len(images)))
    return best


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the committed tiny CLIP")
    parser.add_argument("--model", help="an existing export directory to measure instead")
    parser.add_argument("--export-to", help="keep the random ViT-B/32 export here for reuse")
    parser.add_argument("--images", type=int, default=96)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8, help="preprocessing threads")
    parser.add_argument("--repeat", type=int, default=2, help="interleaved runs; best counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.quick or args.model:
            model = Path(args.model) if args.model else TINY_CLIP
        else:
            print("building and exporting a random ViT-B/32-shaped CLIP ...", file=sys.stderr)
            model = vit_b32(Path(args.export_to or tmp))
        embedder = ClipEmbedder(
            {"model": str(model), "batch": args.batch, "concurrency": args.concurrency}
        )
        print(
            f"model {embedder.model_id} (dim {embedder.dim}, input "
            f"{embedder.preprocess.crop[0]} px), provider {embedder.provider}, "
            f"batch {args.batch}, {args.images} images, {args.concurrency} preprocessing "
            f"threads, best of {args.repeat}, load average {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} CPUs"
        )
        print(f"{'input':<16} {'model only':>11} {'serial':>9} {'pipeline':>9} {'pipe/model':>11}")
        for label, (width, height) in SIZES.items():
            images = [photo(width, height, seed) for seed in range(args.images)]
            rates = measure(embedder, images, args.repeat)
            ratio = rates["pipeline"] / rates["model only"]
            print(
                f"{label:<16} {rates['model only']:>11.1f} {rates['serial']:>9.1f} "
                f"{rates['pipeline']:>9.1f} {ratio:>11.2f}"
            )
        print("(img/s; higher is better)")
        embedder.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
