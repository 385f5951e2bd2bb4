"""A real backend with the tiny CLIP model, and published/unpublished images in its store."""

from __future__ import annotations

import hashlib
import io
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import msgspec
import numpy as np
from PIL import Image as PILImage

from rk.core.api.plugins import RkPluginManager
from rk.core.config import EmbedSettings, Settings, VisionSettings
from rk.server.platform.db.tables import Article, Image
from tests.integration.server.helpers import Backend, backend_settings, running_backend

TINY_CLIP = Path(__file__).resolve().parents[2] / "models" / "tiny_clip"


def picture(seed: int, size: int = 48) -> bytes:
    """A distinct small JPEG: a random colour field with a random bright square."""
    rng = np.random.default_rng(seed)
    pixels = np.full((size, size, 3), rng.integers(0, 256, 3), dtype=np.uint8)
    x, y = rng.integers(0, size // 2, 2)
    pixels[y : y + size // 2, x : x + size // 2] = rng.integers(128, 256, 3)
    out = io.BytesIO()
    PILImage.fromarray(pixels).save(out, format="JPEG", quality=90)
    return out.getvalue()


def embed_settings(
    tmp_path: Path,
    model: Path | str = TINY_CLIP,
    database: str = "",
    allow: Sequence[str] = (),
    **embed: object,
) -> Settings:
    """Backend test settings plus the tiny model and any ``embed`` overrides."""
    base = backend_settings(tmp_path, database=database, allow=allow)
    return msgspec.structs.replace(
        base,
        vision=VisionSettings(model=str(model), batch=8, concurrency=2),
        embed=msgspec.convert(embed, EmbedSettings),
    )


@asynccontextmanager
async def embed_backend(
    tmp_path: Path,
    pm: RkPluginManager,
    model: Path | str = TINY_CLIP,
    database: str = "",
    allow: Sequence[str] = (),
    **embed: object,
) -> AsyncIterator[Backend]:
    """A running backend on 127.0.0.1 with the tiny model (or ``model``) loaded."""
    settings = embed_settings(tmp_path, model, database, allow, **embed)
    async with running_backend(settings, pm) as backend:
        yield backend


async def add_article(show_key: str, status: str, kind: str = "runway") -> int:
    """One article with this status; its id."""
    row = Article(source="vogue", show_key=show_key, kind=kind, title=show_key, status=status)
    await row.save()
    return int(row.id)


async def add_image(
    backend: Backend, article_id: int, position: int, data: bytes, kind: str = "runway"
) -> int:
    """Store ``data`` under its content key and insert an image row for it; its id."""
    sha1 = hashlib.sha1(data).hexdigest()
    key = f"{kind}/{sha1}.jpg"
    await backend.storage.put(key, data)
    row = Image(
        article_id=article_id,
        role="look",
        position=position,
        kind=kind,
        key=key,
        sha1=sha1,
        size=len(data),
    )
    await row.save()
    return int(row.id)


async def add_images(
    backend: Backend, article_id: int, seeds: list[int], kind: str = "runway"
) -> dict[int, bytes]:
    """Store one picture per seed and insert its image row; ``{image_id: bytes}``."""
    out: dict[int, bytes] = {}
    for position, seed in enumerate(seeds, start=1):
        data = picture(seed)
        out[await add_image(backend, article_id, position, data, kind)] = data
    return out
