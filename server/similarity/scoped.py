"""Similar looks within a scope: the published images nearest to one image's stored vector
among the images of a subset of the archive.

The scopes, for a published image of article A (kind K, season S, brand B):

- ``season``: the other published articles of kind K and season S (the other shows of the
  season; empty when S is "");
- ``designer``: the published articles of kind K and brand B whose season is not S (the
  designer's other seasons; empty without a brand);
- ``street``: the published articles of the other kind (runway → street style, street →
  runway), any season;
- ``all``: the whole archive, answered from the image's stored neighbours (``search.similar``).

A scope holding no published image is ``EmptyScope`` (a 404 on the API); a scope with
images but fewer than ``k`` with vectors answers with those it has.
"""

from __future__ import annotations

import numpy as np

from rk.core.api.storage import Storage
from rk.core.api.vector_indexes import Scope
from rk.server.platform.http.errors import ApiError, NotFound
from rk.server.similarity.repository.scopes import (
    published_image_facts,
    scope_arguments,
    scope_article_ids,
    scope_has_articles,
    stored_vector,
)
from rk.server.similarity.search import ImageHit, by_vector, similar
from rk.server.similarity.vectors.model_index import ModelIndex

SCOPES = ("season", "designer", "street", "all")
"""Every scope name, in the order the image page lists them."""
EMPTY = {
    "season": "no other published show of this season",
    "designer": "no other published season of this designer",
    "street": "no published images of the other kind",
}
"""Why a scope holds nothing, per scope name."""


class EmptyScope(NotFound):
    """The image is published but its scope holds no other published image."""


class BadScope(ApiError):
    """``scope`` names no scope."""

    status_code = 400


def check_scope(name: str) -> str:
    """``name`` when it is a scope; BadScope otherwise."""
    if name not in SCOPES:
        raise BadScope("scope must be one of " + ", ".join(SCOPES))
    return name


async def available_scopes(image_id: int) -> set[str]:
    """The scopes of a published image that hold a published article (``all`` always);
    empty when the image is not published."""
    facts = await published_image_facts(image_id)
    if facts is None:
        return set()
    return {"all"} | {name for name in EMPTY if await scope_has_articles(name, facts)}


async def scope_of(image_id: int, name: str) -> tuple[Scope, str] | None:
    """The ``Scope`` ``name`` of a published image and the kind of its images (None for
    ``all``).

    Raises:
        NotFound: no such published image.
        EmptyScope: the scope holds no published article.
    """
    facts = await published_image_facts(image_id)
    if facts is None:
        raise NotFound(f"no published image {image_id}")
    if name == "all":
        return None
    articles = await scope_article_ids(name, facts)
    if not articles:
        raise EmptyScope(f"image {image_id}: {EMPTY[name]}")
    kind = str(scope_arguments(name, facts)[0])
    return Scope(articles=np.asarray(articles, dtype=np.int64), name=name), kind


async def similar_within(
    image_id: int, name: str, k: int, storage: Storage, index: ModelIndex
) -> list[ImageHit]:
    """The ``k`` published images of scope ``name`` most like the image, best first.

    Raises:
        NotFound: no such published image.
        EmptyScope: the scope holds no published image.
    """
    scoped = await scope_of(image_id, name)
    if scoped is None:
        return await similar(image_id, index.model, k, storage)
    within, kind = scoped
    stored = await stored_vector(image_id, index.model)
    if stored is None:
        return []
    query = np.frombuffer(stored, dtype="<f4").astype(np.float32)
    return await by_vector(query.tolist(), k, storage, index, kind, within)
