"""``rk export dataset``: the published archive as webdataset or parquet shards, read back by
the ``webdataset`` and ``pyarrow`` libraries sample for sample, embeddings aligned with the
parquet rows, resumable after a kill, on SQLite and PostgreSQL (issue 33)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import webdataset as wds

from rk.core.api.storage import Storage
from rk.server.platform.db.database import Database
from rk.server.platform.db.tables import ImageColour, ImageEmbedding, ImageTag
from tests.integration.public.archive import Archive, add_show, seed, set_status
from tests.support.cli import RK, rk

DIM = 8
MODEL = "tiny-clip"


def env_of(dsn: str, tmp_path: Path) -> dict[str, str]:
    return {"RK_DATABASE": dsn, "RK_DATA_DIR": str(tmp_path / "data")}


def vector_of(image_id: int) -> np.ndarray:
    """A distinct unit vector per image."""
    vector = np.random.default_rng(image_id).standard_normal(DIM).astype("<f4")
    return vector / np.linalg.norm(vector)


async def embed(image_ids: list[int]) -> None:
    """Store each image's vector under ``MODEL`` as the embed worker does."""
    for image_id in image_ids:
        await ImageEmbedding(
            image_id=image_id,
            model=MODEL,
            kind="runway",
            dim=DIM,
            vector=vector_of(image_id).tobytes(),
        ).save()


async def seeded(storage: Storage) -> Archive:
    """The public tests' archive, every published look embedded but one, one palette, tags."""
    archive = await seed(storage)
    published = [
        i for name in ("acne-ss25", "aurele-ss25", "street-jan") for i in archive.images[name]
    ]
    await embed(published[1:])
    first = archive.images["acne-ss25"][0]
    await ImageColour(
        image_id=first,
        rank=1,
        name="oxblood",
        hex="#4a0000",
        lab_l=1,
        lab_a=2,
        lab_b=3,
        share=0.75,
        delta_e=1.5,
    ).save()
    await ImageTag(image_id=first, tag="coat", score=0.3, state="auto").save()
    await ImageTag(image_id=first, tag="tartan", score=None, state="confirmed").save()
    await ImageTag(image_id=first, tag="dress", score=0.2, state="removed").save()
    return archive


def read_webdataset(out: Path) -> list[dict[str, Any]]:
    """Every sample of the export's tar shards, through the webdataset library."""
    shards = sorted(str(p) for p in out.glob("*.tar"))
    return list(wds.WebDataset(shards, shardshuffle=False, empty_check=False))


def read_parquet(out: Path) -> list[dict[str, Any]]:
    """Every metadata row, shard by shard, through pyarrow."""
    return [
        row for path in sorted(out.glob("*.parquet")) for row in pq.read_table(path).to_pylist()
    ]


async def test_a_filtered_export_reads_back_sample_for_sample(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path
) -> None:
    archive = await seeded(storage)
    out = tmp_path / "runway"
    done = rk(
        "export",
        "dataset",
        str(out),
        "--kind",
        "runway",
        "--season",
        "spring 2025 ready-to-wear",
        "--with-embeddings",
        "--shard-size",
        "4",
        env=env_of(any_dsn, tmp_path),
    )
    assert done.returncode == 0, done.stderr
    expected = [
        i for name in ("acne-ss25", "aurele-ss25", "zeta-ss25") for i in archive.images[name]
    ]
    expected.sort()
    samples, rows = read_webdataset(out), read_parquet(out)
    assert [json.loads(s["json"])["image_id"] for s in samples] == expected
    assert [row["image_id"] for row in rows] == expected
    assert len(list(out.glob("*.tar"))) == 4  # 13 images (7 + 4 + 2) in shards of 4
    for sample, row in zip(samples, rows, strict=True):
        meta = json.loads(sample["json"])
        assert sample["__key__"] == row["key"] == meta["key"]
        assert sample["jpg"] == archive.pictures[int(row["image_id"])]
        assert sample["txt"].decode() == row["caption"]
        assert meta == {k: v for k, v in row.items()}
    first = rows[0]
    assert first["caption"] == "Acne Studios, Spring 2025 Ready-to-Wear, look 1"
    assert first["tags"] == ["coat", "tartan"]  # the removed tag is not exported
    assert first["colours"] == [{"name": "oxblood", "hex": "#4a0000", "share": 0.75}]
    assert first["designer"] == "Jonny Johansson"
    assert first["embedded"] is False  # the one look without a vector
    for path in sorted(out.glob("*.parquet")):
        vectors = np.load(out / "img_emb" / f"img_emb_{path.stem}.npy")
        table = pq.read_table(path).to_pylist()
        assert vectors.shape == (len(table), DIM)
        for vector, row in zip(vectors, table, strict=True):
            if row["embedded"]:
                assert np.array_equal(vector, vector_of(int(row["image_id"])))
            else:
                assert np.isnan(vector).all()
    stats = json.loads((out / "00000_stats.json").read_text())
    assert stats["written"] == 4
    assert stats["unpublished_since_plan"] == 0


async def test_the_parquet_format_holds_the_images(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path
) -> None:
    archive = await seeded(storage)
    out = tmp_path / "street"
    done = rk(
        "export",
        "dataset",
        str(out),
        "--format",
        "parquet",
        "--kind",
        "street",
        env=env_of(any_dsn, tmp_path),
    )
    assert done.returncode == 0, done.stderr
    rows = read_parquet(out)
    assert [row["image_id"] for row in rows] == archive.images["street-jan"]
    assert [row["jpg"] for row in rows] == [
        archive.pictures[i] for i in archive.images["street-jan"]
    ]
    assert rows[0]["photographer"] == "Jane Lens"
    assert rows[0]["caption"] == "street-jan, photo 1"
    assert not list(out.glob("*.tar"))


async def test_only_published_images_leave_even_when_unpublished_after_the_plan(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path
) -> None:
    archive = await seeded(storage)
    out = tmp_path / "all"
    dry = rk("export", "dataset", str(out), "--dry-run", env=env_of(any_dsn, tmp_path))
    assert dry.returncode == 0, dry.stderr
    published = sorted(
        i
        for name in (
            "acne-ss25",
            "acne-fw24",
            "aurele-ss25",
            "aurele-fw24",
            "zeta-ss25",
            "street-jan",
        )
        for i in archive.images[name]
    )
    assert dry.stdout.startswith(f"would write {len(published)} images (")
    assert not out.exists()
    plan = rk("export", "dataset", str(out), "--shard-size", "100", env=env_of(any_dsn, tmp_path))
    assert plan.returncode == 0
    shutil_rmtree_shards(out)
    await set_status(archive.shows["zeta-ss25"], "rejected")
    again = rk("export", "dataset", str(out), "--shard-size", "100", env=env_of(any_dsn, tmp_path))
    assert again.returncode == 0, again.stderr
    ids = [row["image_id"] for row in read_parquet(out)]
    assert ids == [i for i in published if i not in archive.images["zeta-ss25"]]
    stats = json.loads((out / "00000_stats.json").read_text())
    assert stats["unpublished_since_plan"] == len(archive.images["zeta-ss25"])
    assert "2 left out" in again.stderr


def shutil_rmtree_shards(out: Path) -> None:
    """Remove every shard, keeping the plan: the next run writes them all again."""
    for path in out.iterdir():
        if path.name != "export.json" and path.is_file():
            path.unlink()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "csv"], "--format must be webdataset or parquet, not 'csv'"),
        (["--kind", "catwalk"], "--kind must be runway or street, not 'catwalk'"),
        (["--season", "Spring 1850"], "no published image matches season 'Spring 1850'"),
        (["--brand", "Nobody"], "no published image matches brand 'Nobody'"),
        (["--shard-size", "0"], "--shard-size must be between 1 and 100,000, not 0"),
        (["--model", MODEL], "--model names whose vectors to add: give --with-embeddings too"),
        (["--with-embeddings", "--model", "other"], "no vectors of model 'other' in this archive"),
        (
            ["--base-url", "ftp://x"],
            "--base-url must be an http(s) address: scheme 'ftp' is not http or https",
        ),
    ],
)
async def test_bad_input_is_one_line_and_exit_2(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path, args: list[str], message: str
) -> None:
    await seeded(storage)
    out = tmp_path / "bad"
    done = rk("export", "dataset", str(out), *args, env=env_of(any_dsn, tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {message}"
    assert not out.exists()


async def test_another_exports_folder_is_refused(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path
) -> None:
    await seeded(storage)
    out = tmp_path / "one"
    assert (
        rk(
            "export", "dataset", str(out), "--kind", "street", env=env_of(any_dsn, tmp_path)
        ).returncode
        == 0
    )
    other = rk("export", "dataset", str(out), "--kind", "runway", env=env_of(any_dsn, tmp_path))
    assert other.returncode == 2
    assert (
        other.stderr.strip()
        == f"error: {out} holds an export with other options; use another folder"
    )
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = rk("export", "dataset", str(foreign), env=env_of(any_dsn, tmp_path))
    assert refused.returncode == 2
    assert "is not empty and holds no rk export" in refused.stderr


async def test_a_killed_export_of_1000_images_resumes_without_loss_or_duplicates(
    db: Database, storage: Storage, any_dsn: str, tmp_path: Path
) -> None:
    archive = Archive()
    await add_show(
        storage, archive, "big", brand="Big House", season="Resort 2026", looks=1000, size=(24, 36)
    )
    await embed(archive.images["big"])
    out = tmp_path / "big-export"
    args = [RK, "export", "dataset", str(out), "--with-embeddings", "--shard-size", "50"]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RK_")},
        **env_of(any_dsn, tmp_path),
    }
    running = await asyncio.create_subprocess_exec(
        *args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while not (out / "00002_stats.json").exists():
        assert running.returncode is None, "the export ended before it could be killed"
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    running.send_signal(signal.SIGKILL)
    await running.wait()
    markers = sorted(p.name for p in out.glob("*_stats.json"))
    assert 3 <= len(markers) < 20, markers
    resumed = rk(*args[1:], env=env_of(any_dsn, tmp_path), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(markers)} kept from an earlier run" in resumed.stdout + resumed.stderr
    assert not list(out.rglob("*.tmp"))
    samples = read_webdataset(out)
    ids = [json.loads(s["json"])["image_id"] for s in samples]
    assert ids == archive.images["big"]  # every image once, in order
    assert len({s["__key__"] for s in samples}) == 1000
    rows = read_parquet(out)
    assert [row["image_id"] for row in rows] == ids
    vectors = np.concatenate([np.load(p) for p in sorted((out / "img_emb").glob("*.npy"))])
    assert np.array_equal(vectors, np.stack([vector_of(i) for i in ids]))
