"""Pages showing similar looks change on the next request after the neighbours job or a
replaced vector changes their lists, with one move of the ``neighbours`` counter per
transaction (migration 0043), on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.public_changes import read_changes
from rk.server.platform.db.tables import ImageNeighbor
from tests.integration.embeddings.backend import embed_backend
from tests.integration.public.archive import seed
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}
HIDDEN = ("pending", "rejected", "deleted")


async def etags(site: Backend, image_ids: list[int], prefix: str = "") -> dict[int, str]:
    """The ETag of each image's page (``prefix`` "/api": its JSON answer) now."""
    out = {}
    for image_id in image_ids:
        page = await site.client.get(f"{prefix}/images/{image_id}", headers=HTML)
        assert page.status_code == 200, image_id
        out[image_id] = page.headers["etag"]
    return out


async def lists_holding(image_id: int) -> set[int]:
    """The owners of the stored lists ``image_id`` is in."""
    rows = await ImageNeighbor.select(ImageNeighbor.image_id).where(
        ImageNeighbor.neighbor_id == image_id
    )
    return {int(row["image_id"]) for row in rows}


async def test_a_newly_placed_image_changes_the_pages_whose_lists_it_enters(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as site:
        archive = await seed(site.storage)
        newcomer = archive.images["zeta-ss25"][0]
        shown = [
            image_id
            for name, ids in archive.images.items()
            if name not in HIDDEN
            for image_id in ids
            if image_id != newcomer
        ]
        others = {i: p for i, p in archive.pictures.items() if i != newcomer}
        await embed_archive(archive, plugin_manager, others)
        await wait_placed()
        before, counters = await etags(site, shown), await read_changes()

        await embed_archive(archive, plugin_manager, {newcomer: archive.pictures[newcomer]})
        await wait_placed()
        entered = await lists_holding(newcomer) & set(shown)
        assert entered
        for image_id in shown:
            page = await site.client.get(
                f"/images/{image_id}", headers={**HTML, "if-none-match": before[image_id]}
            )
            assert page.status_code == (200 if image_id in entered else 304), image_id
        assert (await read_changes()).neighbours == counters.neighbours + 1, "once per batch"

        # the JSON answer, whose scores have six decimals (the page shows two)
        placed, counters = await etags(site, sorted(entered), "/api"), await read_changes()
        other_picture = archive.pictures[archive.images["street-jan"][0]]
        await embed_archive(archive, plugin_manager, {newcomer: other_picture})
        assert (await read_changes()).neighbours > counters.neighbours, "the save moved it"
        for image_id in sorted(entered):
            answer = await site.client.get(
                f"/api/images/{image_id}", headers={"if-none-match": placed[image_id]}
            )
            assert answer.status_code == 200, image_id
        await wait_placed()
