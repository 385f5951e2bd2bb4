"""A random tiny SigLIP checkpoint built offline, and torch's embeddings of it for reference.

A SiglipModel with hidden size 32, 2 layers, 32 px images, patch 8 and a 16-token text
length, random weights from a seed, a word-level fast tokenizer of a few fashion words
(SigLIP's own is SentencePiece, which would need a trained model file), and SigLIP's image
processor (resize to 32 × 32, no crop, mean/std 0.5). Nothing is downloaded.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

WORDS = "a red dress black leather boots striped linen shirt on the runway coat".split()
TEXTS = ["a red dress", "black leather boots", "a striped linen shirt on the runway"]
LENGTH = 16


def build_tokenizer() -> Any:
    """A fast word-level tokenizer that ends each text with ``</s>`` and pads with it."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2, **{w: i + 3 for i, w in enumerate(WORDS)}}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", 1)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="</s>",
        eos_token="</s>",
        unk_token="<unk>",
        model_max_length=LENGTH,
    )


def build_siglip(directory: Path, seed: int = 0) -> Any:
    """Save a random tiny SiglipModel, its tokenizer and image processor to ``directory``."""
    import torch
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel

    tokenizer = build_tokenizer()
    config = SiglipConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": LENGTH,
            "pad_token_id": 1,
            "eos_token_id": 1,
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
    model = SiglipModel(config).eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(directory)
    return model


def reference(source: Path, images: dict[str, bytes], texts: list[str]) -> dict[str, Any]:
    """Torch's L2-normalised embeddings, through transformers' own SigLIP preprocessing
    and the tokenizer padded to the model's length, as SigLIP is used."""
    import torch
    from transformers import AutoTokenizer, SiglipImageProcessor, SiglipModel

    model = SiglipModel.from_pretrained(source).eval()
    processor = SiglipImageProcessor.from_pretrained(source)
    tokenizer = AutoTokenizer.from_pretrained(source)
    pil = [Image.open(io.BytesIO(data)).convert("RGB") for data in images.values()]
    with torch.no_grad():
        pixels = processor(images=pil, return_tensors="pt")["pixel_values"]
        image_embeds = model.get_image_features(pixel_values=pixels)
        tokens = tokenizer(texts, padding="max_length", max_length=LENGTH, return_tensors="pt")
        text_embeds = model.get_text_features(input_ids=tokens["input_ids"])
    return {
        "images": torch.nn.functional.normalize(image_embeds, dim=-1).tolist(),
        "texts": torch.nn.functional.normalize(text_embeds, dim=-1).tolist(),
    }
