"""Which tags exist: the one place that decides whether ``?tag=`` names a known tag.

Until the tag vocabulary file ships (issue 30, zero-shot tags), a tag is known when any
``image_tags`` row has it, in whatever state; swapping in the vocabulary is this function.
"""

from __future__ import annotations

from rk.server.trends.repository import tag_in_rows


async def known_tag(tag: str) -> bool:
    """Whether ``tag`` is a tag rk knows (any image row has it)."""
    return await tag_in_rows(tag)
