"""Recomputation on both engines: a run resumes where it stopped, a new vocabulary tags every
image again, and the moderators' decisions (audited) survive it: removed stays removed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.config import Settings, TagSettings
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.moderation import Actor
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import ImageTag, ImageTagAudit, ImageTagRun
from rk.server.tags import (
    BadTag,
    TagVectors,
    UnknownTag,
    decide_tag,
    load_tags,
    tag_pending,
)
from tests.integration.tags.seed import reference, seed_vectors, tags_by_image

MODERATOR = Actor(user_id=7, name="mona", via="web")
EXTRA = "name,group,threshold,margin,prompts\ntrench-coat,garment,0.22,0,a trench coat\n"
"""A new tag the concept model reads as a coat: the coats get it when tags are recomputed."""


@pytest.fixture
async def db(any_dsn: str) -> AsyncIterator[str]:
    """Each engine in turn, migrated and bound to the tables."""
    await migrate(any_dsn)
    engine = await connect(any_dsn)
    try:
        yield any_dsn
    finally:
        await close(engine)


@pytest.fixture(scope="module")
def embedder(concept_model: Path) -> ClipEmbedder:
    return reference(concept_model)


async def vectors_for(embedder: ClipEmbedder, extra: str = "") -> TagVectors:
    runtime = await load_tags(Settings(tags=TagSettings(vocabulary_extra=extra)), embedder)
    assert runtime.vectors is not None
    return runtime.vectors


async def test_a_run_resumes_where_it_stopped_and_tags_nothing_twice(
    db: str, embedder: ClipEmbedder
) -> None:
    expected = await seed_vectors(embedder, "resume")
    tags = await vectors_for(embedder)
    lines: list[str] = []
    first = await tag_pending(tags, batch=2, limit=3, progress=lambda p: lines.append(p.line()))
    assert (first.images, first.total) == (3, 3)
    assert [line.split(" (")[0] for line in lines] == [
        "tags: 2 of 3 images tagged",
        "tags: 3 of 3 images tagged",
    ]
    assert lines[-1].endswith(f"({first.tags} tags)")
    rest = await tag_pending(tags, batch=2)
    assert (rest.images, rest.total) == (len(expected) - 3, len(expected) - 3)
    assert await tags_by_image() == expected
    assert (await tag_pending(tags)).images == 0
    with pytest.raises(ValueError, match="batch must be between 1 and 5000"):
        await tag_pending(tags, batch=0)


async def test_removed_stays_removed_after_the_vocabulary_changes(
    db: str, embedder: ClipEmbedder, tmp_path: Path
) -> None:
    expected = await seed_vectors(embedder, "decisions")
    red, blue, striped, plaid, grey = sorted(expected)
    first = await vectors_for(embedder)
    await tag_pending(first)

    removed = await decide_tag(first.vocabulary, red, "plain", "remove", MODERATOR)
    assert (removed.old, removed.new, removed.changed) == ("auto", "removed", True)
    await decide_tag(first.vocabulary, blue, "coat", "confirm", MODERATOR)
    await decide_tag(first.vocabulary, grey, "leather", "add", MODERATOR)
    again = await decide_tag(first.vocabulary, red, "plain", "remove", MODERATOR)
    assert not again.changed
    with pytest.raises(BadTag, match="unknown tag 'nylon-ish'"):
        await decide_tag(first.vocabulary, grey, "nylon-ish", "add", MODERATOR)
    with pytest.raises(UnknownTag, match=f"image {grey} has no tag 'stripe'"):
        await decide_tag(first.vocabulary, grey, "stripe", "remove", MODERATOR)
    with pytest.raises(BadTag, match="tag action must be one of confirm, remove, add"):
        await decide_tag(first.vocabulary, grey, "plain", "delete", MODERATOR)

    extra = tmp_path / "extra.csv"
    extra.write_text(EXTRA, encoding="utf-8")
    second = await vectors_for(embedder, str(extra))
    assert second.vocabulary.digest != first.vocabulary.digest
    done = await tag_pending(second)
    assert done.images == len(expected)
    runs = await ImageTagRun.select(ImageTagRun.vocabulary)
    assert {r["vocabulary"] for r in runs} == {second.vocabulary.digest}

    shown = await tags_by_image()
    assert shown[red] == {"dress"}
    assert shown[grey] == {"plain", "leather"}
    assert shown[striped] == expected[striped]
    assert shown[plaid] == expected[plaid] | {"trench-coat"}
    assert shown[blue] == expected[blue] | {"trench-coat"}
    states = {
        (r["image_id"], r["tag"]): r["state"]
        for r in await ImageTag.select(ImageTag.image_id, ImageTag.tag, ImageTag.state)
    }
    assert states[(red, "plain")] == "removed"
    assert states[(blue, "coat")] == "confirmed"
    assert states[(grey, "leather")] == "confirmed"
    audit = await ImageTagAudit.select().order_by(ImageTagAudit.id)
    assert [(a["image_id"], a["tag"], a["old_state"], a["new_state"]) for a in audit] == [
        (red, "plain", "auto", "removed"),
        (blue, "coat", "auto", "confirmed"),
        (grey, "leather", "", "confirmed"),
    ]
    assert {(a["actor"], a["user_id"], a["via"]) for a in audit} == {("mona", 7, "web")}
