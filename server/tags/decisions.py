"""Moderators' decisions on tags: confirm one, remove one, or add one from the vocabulary.

Each decision changes one ``image_tags`` row and writes its ``image_tag_audit`` row in the
same transaction, so no decision goes unrecorded. A confirmed or removed row is the
moderator's: recomputation never overwrites it, so a removed tag stays removed. Asking
for the state a tag already has changes and records nothing.
"""

from __future__ import annotations

import time
from typing import Literal

from msgspec import Struct

from rk.server.moderation import Actor
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.platform.http.errors import ApiError, NotFound
from rk.server.tags.repository import add_tag, image_article, record_decision, set_state, tag_row
from rk.server.tags.vocabulary import Vocabulary

TagAction = Literal["confirm", "remove", "add"]
TAG_ACTIONS: tuple[TagAction, ...] = ("confirm", "remove", "add")
STATE_OF = {"confirm": "confirmed", "remove": "removed", "add": "confirmed"}


class BadTag(ApiError):
    """A tag name or action rk does not know: a one-line 400."""

    status_code = 400


class UnknownTag(NotFound):
    """The image has no such tag to confirm or remove, or there is no such image."""


class TagDecision(Struct, frozen=True, kw_only=True):
    """One decision: the tag of image ``image_id`` (article ``article_id``) went from
    ``old`` ("" when it was not there) to ``new`` (equal when nothing was to do)."""

    image_id: int
    article_id: int
    tag: str
    old: str
    new: str

    @property
    def changed(self) -> bool:
        """False when the tag already had the asked-for state."""
        return self.old != self.new


def check_tag(vocabulary: Vocabulary, tag: str) -> str:
    """``tag`` when the vocabulary has it; BadTag (400, one line) otherwise."""
    if tag not in vocabulary.names:
        raise BadTag(f"unknown tag {tag[:64]!r}: see docs/tags.md for the vocabulary")
    return tag


async def decide_tag(
    vocabulary: Vocabulary, image_id: int, tag: str, action: str, actor: Actor
) -> TagDecision:
    """Confirm, remove or add ``tag`` on image ``image_id``, audited in one transaction.

    Raises BadTag for an unknown action, or an unknown tag to add; UnknownTag for no such
    image, or a tag to confirm or remove that the image does not have.
    """
    if action not in TAG_ACTIONS:
        raise BadTag(f"tag action must be one of {', '.join(TAG_ACTIONS)}, not {action[:20]!r}")
    if action == "add":
        check_tag(vocabulary, tag)
    new = STATE_OF[action]
    now = int(time.time())
    async with write_transaction():
        article_id = await image_article(image_id)
        if article_id is None:
            raise UnknownTag(f"image {image_id} does not exist")
        row = await tag_row(image_id, tag)
        if row is None and action != "add":
            raise UnknownTag(f"image {image_id} has no tag {tag[:64]!r}")
        old = "" if row is None else str(row["state"])
        if old == new:
            return TagDecision(image_id=image_id, article_id=article_id, tag=tag, old=old, new=new)
        if row is None:
            await add_tag(image_id, tag, new, now)
        else:
            await set_state(image_id, tag, new)
        await record_decision(
            (image_id, tag, old, new, actor.user_id, actor.name[:64], actor.via, now)
        )
    return TagDecision(image_id=image_id, article_id=article_id, tag=tag, old=old, new=new)
