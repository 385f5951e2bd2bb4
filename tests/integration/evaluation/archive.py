"""An archive of flat-colour looks embedded by the two colour models, for ``rk eval``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image
from rk.server.similarity.embeddings import ModelInfo, submit
from tests.integration.embeddings.seed import article, image
from tests.support.colour_models import COLOURS, flat_picture

PER_COLOUR = 5


def interleaved() -> Iterator[tuple[int, str]]:
    """(seed, colour) for PER_COLOUR pictures of each colour, colours taking turns."""
    for n in range(PER_COLOUR):
        for colour in COLOURS:
            yield n, colour


async def embed_into(model_dir: Path, pictures: dict[int, bytes], pm: RkPluginManager) -> str:
    """Embed ``{image_id: bytes}`` with the model in ``model_dir`` and submit the vectors
    through the backend's own submit path; the model id."""
    embedder = ClipEmbedder({"model": str(model_dir), "providers": ["cpu"]})
    try:
        ids = list(pictures)
        result = embedder.embed_images([pictures[i] for i in ids])
        items = [
            EmbeddingVector(kind="runway", image_id=ids[i], vector=vector)
            for i, vector in zip(result.indexes, result.vectors, strict=True)
        ]
        model = ModelInfo(model_id=embedder.model_id, dim=embedder.dim)
        answer = await submit(EmbeddingSubmit(items=items), model, pm, failure_cap=3)
        assert answer.saved == len(pictures), answer.errors
        return embedder.model_id
    finally:
        embedder.close()


async def colour_archive(
    dsn: str, model_dirs: list[Path], pm: RkPluginManager, storage: Storage | None = None
) -> dict[str, list[int]]:
    """Published looks of each colour plus an unpublished article of red ones, every image
    embedded by each model; the published image ids by colour (``unpublished`` too).
    With ``storage``, each picture is stored there under its content key, as ingest does."""
    await migrate(dsn)
    db = await connect(dsn)
    try:
        shown = await article("colours-published")
        hidden = await article("colours-pending", status="pending")
        by_colour: dict[str, list[int]] = {colour: [] for colour in COLOURS}
        by_colour["unpublished"] = []
        pictures: dict[int, bytes] = {}
        for position, (seed, colour) in enumerate(interleaved(), start=1):
            image_id = await image(shown, position)
            by_colour[colour].append(image_id)
            pictures[image_id] = flat_picture(colour, seed)
        for position in range(1, PER_COLOUR + 1):
            image_id = await image(hidden, position)
            by_colour["unpublished"].append(image_id)
            pictures[image_id] = flat_picture("red", 100 + position)
        if storage is not None:
            for image_id, data in pictures.items():
                sha1 = hashlib.sha1(data).hexdigest()
                await Image.update(
                    {Image.key: f"runway/{sha1}.jpg", Image.sha1: sha1, Image.size: len(data)}
                ).where(Image.id == image_id)
                await storage.put(f"runway/{sha1}.jpg", data)
        for model_dir in model_dirs:
            await embed_into(model_dir, pictures, pm)
        return by_colour
    finally:
        await close(db)
