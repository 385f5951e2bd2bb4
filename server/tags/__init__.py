"""rk.server.tags: zero-shot tags for garments, silhouettes, necklines, patterns and
materials, computed from the stored image vectors and the model's text tower, and the
moderators' confirmations and removals of them.

The vocabulary (``vocabulary.csv``, names from Fashionpedia's ontology, extended by
``tags.vocabulary_extra``) and the scoring rule are documented in ``docs/tags.md``.

For other slices:

- ``tags_lifespan`` loads the vocabulary and runs the tagging job; ``tags_of(state)`` is
  the app's ``TagRuntime`` (its ``vocabulary``, and tag ``vectors`` when the model reads
  words); ``check_tag`` is the one-line 400 (``BadTag``) for a name it does not know.
- ``tag_pending`` tags every out-of-date image (``rk tags backfill``).
- ``published_tags(image_id)`` for the site; ``review_tags``, ``tag_audit`` and
  ``decide_tag`` (audited confirm / remove / add) for the console.
- ``SHOWN_STATES``: the states a tag counts in (shown, filtered, faceted, trended).
"""

from __future__ import annotations

from rk.server.tags.decisions import (
    TAG_ACTIONS,
    BadTag,
    TagDecision,
    UnknownTag,
    check_tag,
    decide_tag,
)
from rk.server.tags.lifespan import tags_lifespan
from rk.server.tags.repository import SHOWN as SHOWN_STATES
from rk.server.tags.runtime import TagRuntime, load_tags, shipped_vocabulary, tags_of
from rk.server.tags.scoring import Scored, TagVectors, applied_tags, tag_vectors
from rk.server.tags.shown import ImageTag, TagAudit, published_tags, review_tags, tag_audit
from rk.server.tags.tagging import MAX_BATCH, TagProgress, tag_pending
from rk.server.tags.vocabulary import BadVocabulary, Tag, Vocabulary, load_vocabulary

__all__ = [
    "MAX_BATCH",
    "SHOWN_STATES",
    "TAG_ACTIONS",
    "BadTag",
    "BadVocabulary",
    "ImageTag",
    "Scored",
    "Tag",
    "TagAudit",
    "TagDecision",
    "TagProgress",
    "TagRuntime",
    "TagVectors",
    "UnknownTag",
    "Vocabulary",
    "applied_tags",
    "check_tag",
    "decide_tag",
    "load_tags",
    "load_vocabulary",
    "published_tags",
    "review_tags",
    "shipped_vocabulary",
    "tag_audit",
    "tag_pending",
    "tag_vectors",
    "tags_lifespan",
    "tags_of",
]
