"""Tags as pages and the API show them: a published image's shown tags, and every tag of the
images a moderator reviews (removed ones included, so they can be put back)."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct, convert

from rk.server.tags.repository import decision_rows, published_tag_rows, tag_rows


class ImageTag(Struct, frozen=True, kw_only=True):
    """One tag of an image: its name, the model's cosine score (None: a moderator added it)
    and its state (``auto``, ``confirmed`` or, in the console only, ``removed``)."""

    tag: str
    score: float | None
    state: str


class TagAudit(Struct, frozen=True, kw_only=True):
    """One moderator's decision on a tag of an image."""

    id: int
    image_id: int
    tag: str
    old_state: str
    new_state: str
    actor: str
    via: str
    at: int


def _tag(row: dict[str, object]) -> ImageTag:
    score = row["score"]
    return ImageTag(
        tag=str(row["tag"]),
        score=None if score is None else round(float(str(score)), 4),
        state=str(row["state"]),
    )


async def published_tags(image_id: int) -> list[ImageTag]:
    """The ``auto`` and ``confirmed`` tags of image ``image_id`` while it is published."""
    return [_tag(row) for row in await published_tag_rows(image_id)]


async def review_tags(image_ids: Sequence[int]) -> dict[int, list[ImageTag]]:
    """Every tag (any state) of each of these images, best score first."""
    found: dict[int, list[ImageTag]] = {image_id: [] for image_id in image_ids}
    for row in await tag_rows(image_ids):
        found.setdefault(int(str(row["image_id"])), []).append(_tag(row))
    return found


async def tag_audit(image_ids: Sequence[int]) -> list[TagAudit]:
    """The tag decisions on these images, newest first."""
    return [convert(row, TagAudit) for row in await decision_rows(image_ids)]
