"""Writing one shard: its samples' images and metadata, then its marker, atomically.

Every file of shard ``n`` is written under a ``.tmp`` name and renamed when whole; the
``{n}_stats.json`` marker is renamed last, so a shard with a marker is complete and one
without is rewritten from scratch by the next run (its leftovers removed first).
"""

from __future__ import annotations

import io
import os
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rk.server.datasets.samples import SCHEMA, SHARD_DIGITS, Sample

ROW_GROUP = 64
"""Samples per parquet row group: the parquet format holds this many images in memory."""
EMBEDDINGS = "img_emb"


def shard_name(shard: int) -> str:
    """``00012``."""
    return f"{shard:0{SHARD_DIGITS}d}"


def marker(out: Path, shard: int) -> Path:
    """The file whose presence says shard ``shard`` is complete."""
    return out / f"{shard_name(shard)}_stats.json"


def shard_files(out: Path, shard: int) -> list[Path]:
    """Every file shard ``shard`` may write (whole or ``.tmp``), marker last."""
    name = shard_name(shard)
    whole = [
        out / f"{name}.tar",
        out / f"{name}.parquet",
        out / EMBEDDINGS / f"img_emb_{name}.npy",
        marker(out, shard),
    ]
    return [*whole, *(path.with_name(path.name + ".tmp") for path in whole)]


def clear(out: Path, shard: int) -> None:
    """Remove what an interrupted run left of shard ``shard``."""
    for path in shard_files(out, shard):
        path.unlink(missing_ok=True)


def extension(data: bytes) -> str:
    """The image's own format as webdataset names it: ``jpg``, ``png`` or ``webp``."""
    if data.startswith(b"\x89PNG"):
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "jpg"


class ShardWriter:
    """One shard being written: call ``add`` per sample, then ``finish`` (or ``abandon``)."""

    def __init__(self, out: Path, shard: int, fmt: str, dim: int) -> None:
        self.out, self.shard, self.fmt, self.dim = out, shard, fmt, dim
        name = shard_name(shard)
        self.parquet_tmp = out / f"{name}.parquet.tmp"
        self.tar_tmp = out / f"{name}.tar.tmp"
        self.npy_tmp = out / EMBEDDINGS / f"img_emb_{name}.npy.tmp"
        # closed by finish() or abandon()
        self.tar = tarfile.open(self.tar_tmp, "w") if fmt == "webdataset" else None  # noqa: SIM115
        schema = SCHEMA.append(pa.field("jpg", pa.binary())) if fmt == "parquet" else SCHEMA
        self.parquet = pq.ParquetWriter(self.parquet_tmp, schema)
        self.pending: list[tuple[Sample, bytes]] = []
        self.vectors: list[np.ndarray] = []
        self.samples = 0
        self.bytes = 0

    def add(self, sample: Sample, image: bytes, vector: np.ndarray | None) -> None:
        """Write one sample (its image, ``.json`` and ``.txt``); its row joins the parquet."""
        if self.tar is not None:
            ext = extension(image)
            meta = msgspec.json.encode(sample)
            for suffix, data in ((ext, image), ("json", meta), ("txt", sample.caption.encode())):
                info = tarfile.TarInfo(f"{sample.key}.{suffix}")
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                self.tar.addfile(info, io.BytesIO(data))
        self.pending.append((sample, image))
        if len(self.pending) >= ROW_GROUP:
            self._flush()
        if self.dim:
            self.vectors.append(vector if vector is not None else np.full(self.dim, np.nan, "<f4"))
        self.samples += 1
        self.bytes += len(image)

    def _flush(self) -> None:
        """The pending samples as one parquet row group."""
        if not self.pending:
            return
        rows = [msgspec.to_builtins(sample) for sample, _ in self.pending]
        if self.fmt == "parquet":
            for row, (_, image) in zip(rows, self.pending, strict=True):
                row["jpg"] = image
        self.parquet.write_table(pa.Table.from_pylist(rows, schema=self.parquet.schema))
        self.pending = []

    def finish(self, stats: dict[str, object]) -> None:
        """Close every file, rename each into place, then write the marker."""
        self._flush()
        self.parquet.close()
        if self.tar is not None:
            self.tar.close()
            os.replace(self.tar_tmp, self.out / f"{shard_name(self.shard)}.tar")
        os.replace(self.parquet_tmp, self.out / f"{shard_name(self.shard)}.parquet")
        if self.dim:
            self.npy_tmp.parent.mkdir(exist_ok=True)
            with self.npy_tmp.open("wb") as npy:
                matrix = np.stack(self.vectors) if self.vectors else np.empty((0, self.dim), "<f4")
                np.save(npy, matrix.astype("<f4"))
            os.replace(self.npy_tmp, self.npy_tmp.with_suffix(""))
        done = marker(self.out, self.shard)
        tmp = done.with_name(done.name + ".tmp")
        tmp.write_bytes(msgspec.json.format(msgspec.json.encode(stats), indent=2))
        os.replace(tmp, done)

    def abandon(self) -> None:
        """Close and remove everything this shard wrote."""
        self.parquet.close()
        if self.tar is not None:
            self.tar.close()
        clear(self.out, self.shard)


@contextmanager
def writing(out: Path, shard: int, fmt: str, dim: int) -> Iterator[ShardWriter]:
    """A shard writer whose files are removed if the block fails."""
    clear(out, shard)
    writer = ShardWriter(out, shard, fmt, dim)
    try:
        yield writer
    except BaseException:
        writer.abandon()
        raise
