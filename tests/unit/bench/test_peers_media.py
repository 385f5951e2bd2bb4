"""The media pair's harness on a few small photos: both tools run, img2dataset's stats are
read (issue 31). No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.peers import media
from bench.peers.media_img2dataset import img2dataset_round, written
from bench.peers.photo_server import serve
from bench.spider_media import write_set
from tests.support.net import free_port, wait_for_port

pytest.importorskip("img2dataset", reason="the bench extra is not installed")
pytestmark = pytest.mark.slow

SMALL = (320, 480)


def test_img2dataset_writes_every_photo_and_its_stats_say_so(tmp_path: Path) -> None:
    files = tmp_path / "images"
    files.mkdir()
    names = write_set(files, "p", 4, SMALL)
    port = free_port()
    server = serve(files, port)
    try:
        wait_for_port(port)
        urls = [f"http://127.0.0.1:{port}/{name}" for name in names]
        sample = img2dataset_round(urls, tmp_path / "run", processes=2)
    finally:
        server.terminate()
        server.wait()
    assert sample.items == 4
    assert sample.seconds > 0
    assert sample.extra["whole items/s"] > 0
    shards = written(tmp_path / "run" / "out")
    assert (shards.count, dict(shards.reasons)) == (4, {})
    assert len(list((tmp_path / "run" / "out").glob("*/*.jpg"))) == 4


async def test_the_pair_runs_every_row_and_prints_the_ratio(tmp_path: Path) -> None:
    table = await media.run(tmp_path, count=6, rounds=1, concurrency=2, size=SMALL)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| rk, spider media path → file store",
        "| rk, presigned upload → S3 (moto)",
        "| same-work loop, no protocol",
        "| img2dataset",
    ]
    assert any(line.startswith("ratio rk / img2dataset: ") for line in table.splitlines())
    assert "rk file store ÷ same-work loop: " in table
    assert any(line.startswith("CPU ms/photo: rk file store ") for line in table.splitlines())
