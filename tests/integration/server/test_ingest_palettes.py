"""Ingest measures each stored image's palette in the pass that makes its thumbnail and writes
it with the image rows (issue 30), on SQLite and PostgreSQL: no backfill is needed, and a
failed attempt writes no palette.
"""

from __future__ import annotations

from pathlib import Path

from rk.server.platform.db.tables import ImageColour
from tests.integration.colour.archive import hex_of
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, backend_settings, images_of, show
from tests.integration.server.images import Answer, ImageServer
from tests.support.garments import garment_picture


async def palette_names(image_id: int) -> list[str]:
    """The colour names of an image's stored palette, largest share first."""
    rows = (
        await ImageColour.select(ImageColour.name)
        .where(ImageColour.image_id == image_id)
        .order_by(ImageColour.rank)
    )
    return [str(row["name"]) for row in rows]


async def test_a_freshly_ingested_image_has_its_palette_without_a_backfill(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    navy = garment_picture(hex_of("navy"), shape="coat", size=(640, 960))
    mustard = garment_picture(hex_of("mustard"), shape="dress", size=(400, 600))
    payload = show(
        "ss25/palettes", [images.add("/navy.jpg", navy), images.add("/mustard.jpg", mustard)]
    )
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created", job
    article = await article_of(payload)
    assert article is not None
    rows = await images_of(article["id"])
    assert [(await palette_names(row["id"]))[0] for row in rows] == ["navy", "mustard"]

    again = show("ss25/palettes-again", [images.add("/navy-again.jpg", navy)])
    assert (await backend.ingest_and_wait(again))["outcome"] == "created"
    second = await article_of(again)
    assert second is not None
    (reused,) = await images_of(second["id"])
    assert reused["thumb_key"] == rows[0]["thumb_key"]
    assert (await palette_names(reused["id"]))[0] == "navy"


async def test_a_failed_attempt_writes_no_palette(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    settings = backend_settings(
        tmp_path, database=any_dsn, backoff_s=600, max_attempts=2, allow=images.allow
    )
    backend = await start_backend(settings)
    ok = garment_picture(hex_of("emerald"))
    payload = show(
        "ss25/half",
        [images.add("/ok.jpg", ok), images.add("/down.jpg", Answer(status=503, body=b"x"))],
    )
    job_id = await backend.submit(payload)
    failed = await backend.wait_attempt(job_id, 1)
    assert failed["last_error"].startswith("1 of 2 images failed")
    assert await article_of(payload) is None
    assert await ImageColour.count() == 0
