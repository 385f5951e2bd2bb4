"""Search by colour over a test archive of flat-colour garments, on SQLite and PostgreSQL.

Done when (issue 30): a colour search puts only images of that colour (ΔE00 < 10 against
the known colour) in its top 10, on both engines; unpublished images never appear.
"""

from __future__ import annotations

import pytest

from rk.core.api.storage import Storage
from rk.server.colour import (
    BadColour,
    colour_facet,
    compute_colours,
    images_by_colour,
    parse_colour,
)
from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import lab_of_hex
from rk.server.platform.db.database import Database
from rk.server.platform.db.tables import Image, ImageColour
from tests.integration.colour.archive import (
    COLOURS,
    LOOKS,
    Archive,
    add_look,
    hex_of,
    picture,
    seed_archive,
)
from tests.integration.embeddings.seed import article


@pytest.fixture
async def archive(db: Database, storage: Storage) -> Archive:
    """The flat-colour archive, every image measured."""
    seeded = await seed_archive(storage)
    report = await compute_colours(db, storage, sorted(seeded.colour_of))
    assert report.failed == {}
    assert set(report.measured) == set(seeded.colour_of)
    return seeded


def known_delta_e(archive: Archive, image_id: int, query: str) -> float:
    """ΔE00 between an image's known garment colour and the colour asked for."""
    wanted = parse_colour(query).lab
    return float(delta_e_2000(lab_of_hex(archive.colour_of[image_id]), wanted))


async def test_top_10_holds_only_published_images_of_that_colour(
    db: Database, archive: Archive
) -> None:
    for colour in [*COLOURS, "#1d2745"]:
        hits = await images_by_colour(db, colour, 10)
        assert len(hits) == 10, colour
        for hit in hits:
            assert hit.image_id in archive.published
            assert known_delta_e(archive, hit.image_id, colour) < 10, (colour, hit)
            assert hit.delta_e < 10
        assert [hit.score for hit in hits] == sorted((h.score for h in hits), reverse=True)
    for colour in COLOURS:
        everything = await images_by_colour(db, colour, 100)
        assert {hit.image_id for hit in everything} == {
            image_id
            for image_id in archive.published
            if archive.colour_of[image_id] == hex_of(colour)
        }, colour
        assert {hit.name for hit in everything} == {colour}
        assert not {hit.image_id for hit in everything} & archive.hidden


async def test_colour_combines_with_a_kind_another_searchs_ids_and_a_facet(
    db: Database, archive: Archive, storage: Storage
) -> None:
    street = await images_by_colour(db, "camel", 100, kind="street")
    assert street
    assert {hit.image_id for hit in street} <= archive.street
    assert all(hit.kind == "street" for hit in street)
    first_show = next(iter(archive.shows.values()))
    among = await images_by_colour(db, "emerald", 10, among=first_show, storage=storage)
    assert among
    assert {hit.image_id for hit in among} <= set(first_show)
    assert all(archive.colour_of[hit.image_id] == hex_of("emerald") for hit in among)
    assert all(hit.url for hit in among)

    counts = {entry.name: entry.count for entry in await colour_facet(db)}
    assert {name: counts.get(name) for name in COLOURS} == dict.fromkeys(COLOURS, LOOKS)
    street_counts = {entry.name: entry.count for entry in await colour_facet(db, kind="street")}
    assert sum(street_counts.get(name, 0) for name in COLOURS) == len(archive.street)


@pytest.mark.parametrize(
    ("colour", "limit", "message"),
    [
        ("oxbloud", 10, "unknown colour 'oxbloud' (did you mean oxblood?)"),
        ("#12", 10, "malformed hex colour '#12': use #rrggbb or #rgb"),
        ("red", 0, "limit must be between 1 and 500, not 0"),
    ],
)
async def test_bad_input_is_a_one_line_400(
    db: Database, colour: str, limit: int, message: str
) -> None:
    with pytest.raises(BadColour) as caught:
        await images_by_colour(db, colour, limit)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert caught.value.status_code == 400


async def test_measuring_again_replaces_and_deleting_takes_the_colours(
    db: Database, storage: Storage
) -> None:
    article_id = await article("one")
    first = await add_look(storage, article_id, 1, picture("cobalt", 1))
    second = await add_look(storage, article_id, 2, picture("mustard", 2))
    assert (await compute_colours(db, storage, [first, second])).measured == [first, second]
    before = await ImageColour.select().where(ImageColour.image_id == first)
    report = await compute_colours(db, storage, [first, first, 10**9])
    assert report.measured == [first]
    assert report.failed == {10**9: "no such image"}
    after = await ImageColour.select().where(ImageColour.image_id == first)
    assert [(r["rank"], r["name"], r["share"]) for r in after] == [
        (r["rank"], r["name"], r["share"]) for r in before
    ]
    assert after[0]["name"] == "cobalt"
    await Image.delete().where(Image.id == first)
    assert await ImageColour.count().where(ImageColour.image_id == first) == 0
    assert await ImageColour.count().where(ImageColour.image_id == second) >= 1
