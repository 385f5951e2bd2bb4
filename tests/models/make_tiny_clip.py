"""Regenerate tests/models/tiny_clip: a random-weight CLIP small enough to commit.

Run with the export extra installed (torch, transformers, optimum):

    .venv/bin/python tests/models/make_tiny_clip.py

Everything is built offline: a byte-level BPE tokenizer whose merges are learnt (deterministically)
from a few fashion phrases, a CLIPModel with hidden size 32, 2 layers, 32 px images, patch 8 and
projection 16, random weights from a fixed seed. It is exported with rk's own exporter
(``rk.plugins.clip_embed.export``), and ``reference.json`` records torch's normalised
embeddings of three generated images and three texts, computed through transformers'
own CLIPImageProcessor and tokenizer, so the tests compare rk's preprocessing + ONNX
path against the reference implementation.

The export test imports ``build_source`` from here to make a checkpoint to export.
"""

from __future__ import annotations

import io
import itertools
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
OUT = HERE / "tiny_clip"
MODEL_ID = "rk-test/tiny-clip"
TEXTS = ["a red dress", "black leather boots", "a striped linen shirt on the runway"]
CORPUS = [
    "a red dress on the runway",
    "black leather boots and a wool coat",
    "a striped linen shirt",
    "street style in paris, milan, london and new york",
    "spring 2025 ready to wear collection",
    "a white cotton blouse with lace details",
    "tailored trousers, silk scarf, denim jacket",
]
BOS, EOS = "<|startoftext|>", "<|endoftext|>"


def learn_merges(words: list[tuple[str, ...]], count: int) -> list[tuple[str, str]]:
    """Byte-pair merges learnt from ``words``, most frequent pair first, ties broken by the
    pair itself, so the result is the same on every run (tokenizers' trainer breaks ties in
    hash order)."""
    merges: list[tuple[str, str]] = []
    words = list(words)
    for _ in range(count):
        pairs: dict[tuple[str, str], int] = {}
        for word in words:
            for pair in itertools.pairwise(word):
                pairs[pair] = pairs.get(pair, 0) + 1
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        if pairs[best] < 2:
            break
        merges.append(best)
        merged = []
        for word in words:
            out: list[str] = []
            i = 0
            while i < len(word):
                if word[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged.append(tuple(out))
        words = merged
    return merges


def build_tokenizer() -> Any:
    """A CLIP-shaped byte-level BPE tokenizer (CLIP's normaliser, pre-tokeniser and
    post-processor) whose merges are learnt from ``CORPUS``, offline and deterministically."""
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )
    from transformers import CLIPTokenizerFast

    normalizer = normalizers.Sequence(
        [normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()]
    )
    pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(
                Regex(r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""),
                behavior="removed",
                invert=True,
            ),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    words = [
        (*piece[:-1], piece[-1] + "</w>")
        for line in CORPUS
        for piece, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(line))
    ]
    merges = learn_merges(words, 150)
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tokens = [BOS, EOS, *alphabet, *(c + "</w>" for c in alphabet)]
    tokens += [a + b for a, b in merges if a + b not in tokens]
    vocab = {token: i for i, token in enumerate(dict.fromkeys(tokens))}
    tok = Tokenizer(
        models.BPE(vocab, merges, unk_token=EOS, end_of_word_suffix="</w>", fuse_unk=False)
    )
    tok.add_special_tokens([BOS, EOS])
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(
        sep=(EOS, vocab[EOS]), cls=(BOS, vocab[BOS]), add_prefix_space=False, trim_offsets=False
    )
    return CLIPTokenizerFast(tokenizer_object=tok, model_max_length=16)


def build_source(directory: Path, seed: int = 0) -> Any:
    """Save a random tiny CLIPModel, its tokenizer and image processor to ``directory``."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    tokenizer = build_tokenizer()
    config = CLIPConfig(
        projection_dim=16,
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 16,
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
    )
    torch.manual_seed(seed)
    model = CLIPModel(config).eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    processor = CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
    )
    processor.save_pretrained(directory)
    return model


def make_images() -> dict[str, bytes]:
    """Three small PNGs with clearly different content (not square, so cropping matters)."""
    h, w = 40, 48
    ys, xs = np.mgrid[0:h, 0:w]
    gradient = np.stack([xs * 255 // (w - 1), ys * 255 // (h - 1), 255 - xs * 255 // (w - 1)], -1)
    checker = ((xs // 6 + ys // 6) % 2 * 255)[..., None].repeat(3, -1)
    rings = Image.new("RGB", (w, h), (20, 60, 30))
    draw = ImageDraw.Draw(rings)
    for r, colour in ((18, (250, 200, 0)), (12, (200, 0, 80)), (6, (0, 120, 255))):
        draw.ellipse((w // 2 - r, h // 2 - r, w // 2 + r, h // 2 + r), fill=colour)
    out: dict[str, bytes] = {}
    for name, image in (
        ("gradient.png", Image.fromarray(gradient.astype(np.uint8))),
        ("checker.png", Image.fromarray(checker.astype(np.uint8))),
        ("rings.png", rings),
    ):
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        out[name] = buf.getvalue()
    return out


def reference(source: Path, images: dict[str, bytes], texts: list[str]) -> dict[str, Any]:
    """Torch's L2-normalised embeddings, through transformers' own preprocessing."""
    import torch
    from transformers import CLIPImageProcessor, CLIPModel, CLIPTokenizerFast

    model = CLIPModel.from_pretrained(source).eval()
    processor = CLIPImageProcessor.from_pretrained(source)
    tokenizer = CLIPTokenizerFast.from_pretrained(source)
    pil = [Image.open(io.BytesIO(data)) for data in images.values()]
    with torch.no_grad():
        pixels = processor(images=pil, return_tensors="pt")["pixel_values"]
        image_embeds = model.get_image_features(pixel_values=pixels)
        tokens = tokenizer(texts, padding="max_length", truncation=True, return_tensors="pt")
        text_embeds = model.get_text_features(**tokens)
    image_embeds = torch.nn.functional.normalize(image_embeds, dim=-1)
    text_embeds = torch.nn.functional.normalize(text_embeds, dim=-1)
    return {
        "model_id": MODEL_ID,
        "dim": int(image_embeds.shape[1]),
        "images": dict(zip(images, image_embeds.tolist(), strict=True)),
        "texts": dict(zip(texts, text_embeds.tolist(), strict=True)),
    }


def main() -> int:
    """Rebuild tests/models/tiny_clip from scratch."""
    from rk.plugins.clip_embed.export import export_clip

    images = make_images()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        build_source(source)
        if OUT.exists():
            shutil.rmtree(OUT)
        export_clip(str(source), OUT, model_id=MODEL_ID)
        ref = reference(source, images, TEXTS)
    (OUT / "images").mkdir()
    for name, data in images.items():
        (OUT / "images" / name).write_bytes(data)
    (OUT / "reference.json").write_text(json.dumps(ref, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {OUT} ({total // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
