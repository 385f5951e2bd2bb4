"""Planning and running an export: the images fixed once, shards written in turn, resumable.

The plan (``export.json`` in the output folder) is the ordered list of image ids published
when the export started, cut into shards of ``shard_size``; a later run with the same
options keeps every shard whose marker exists and writes the others. An image unpublished
since the plan, or whose original storage has lost, is left out and counted in its shard's
stats, never written.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np

from rk.core.api.storage import Storage
from rk.server.datasets import repository
from rk.server.datasets.filters import BadExport, ExportFilters
from rk.server.datasets.samples import sample_key, sample_of
from rk.server.datasets.shards import marker, writing

FORMATS = ("webdataset", "parquet")
PLAN = "export.json"
MAX_SHARD = 100_000


class ExportPlan(msgspec.Struct, frozen=True, kw_only=True):
    """What an export writes: its options and the images, fixed when it started."""

    format: str
    filters: ExportFilters
    model: str
    shard_size: int
    ids: list[int]
    planned_at: int
    bytes: int = 0

    @property
    def shards(self) -> int:
        return -(-len(self.ids) // self.shard_size)

    def same_options(self, other: ExportPlan) -> bool:
        """Whether ``other`` asks for this export (so its shards can be kept)."""
        mine = (self.format, self.filters, self.model, self.shard_size)
        return mine == (other.format, other.filters, other.model, other.shard_size)


@dataclass
class ExportProgress:
    """Where an export stands: shards and samples written, kept from before, left out."""

    shards: int
    done_shards: int = 0
    kept_shards: int = 0
    samples: int = 0
    left_out: int = 0
    bytes: int = 0
    started: float = 0.0

    def line(self) -> str:
        """``shard 3 of 10 written: 3,000 samples, 750.2 MB, 40.1 samples/s, 2 left out``."""
        rate = self.samples / max(time.monotonic() - self.started, 1e-9)
        kept = f", {self.kept_shards} kept from an earlier run" if self.kept_shards else ""
        return (
            f"shard {self.done_shards} of {self.shards} written{kept}: {self.samples:,} samples, "
            f"{self.bytes / 1e6:,.1f} MB, {rate:,.1f} samples/s, {self.left_out} left out"
        )


async def plan_export(filters: ExportFilters, fmt: str, model: str, shard_size: int) -> ExportPlan:
    """The images an export of ``filters`` takes now; BadExport when it would take none."""
    if fmt not in FORMATS:
        raise BadExport(f"--format must be webdataset or parquet, not {fmt[:40]!r}")
    if not 1 <= shard_size <= MAX_SHARD:
        raise BadExport(f"--shard-size must be between 1 and {MAX_SHARD:,}, not {shard_size}")
    checked = filters.check()
    if model and await repository.vector_dim(model) == 0:
        raise BadExport(f"no vectors of model {model[:80]!r} in this archive")
    ids = await repository.planned_ids(checked)
    if not ids:
        raise BadExport(f"no published image matches {checked.described()}")
    size = await repository.planned_bytes(checked)
    return ExportPlan(
        format=fmt,
        filters=checked,
        model=model,
        shard_size=shard_size,
        ids=ids,
        planned_at=int(time.time()),
        bytes=size,
    )


def settled_plan(out: Path, wanted: ExportPlan) -> ExportPlan:
    """The plan ``out`` already holds when it asks for the same export, else ``wanted``
    (written there); BadExport when ``out`` holds another export."""
    path = out / PLAN
    if path.exists():
        try:
            held = msgspec.json.decode(path.read_bytes(), type=ExportPlan)
        except msgspec.DecodeError as exc:
            raise BadExport(f"{path} is not an rk export plan: {exc}") from None
        if not held.same_options(wanted):
            raise BadExport(f"{out} holds an export with other options; use another folder")
        return held
    if out.exists() and any(out.iterdir()):
        raise BadExport(f"{out} is not empty and holds no rk export; use an empty folder")
    out.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(PLAN + ".tmp")
    tmp.write_bytes(msgspec.json.encode(wanted))
    tmp.replace(path)
    return wanted


async def export_dataset(
    storage: Storage,
    out: Path,
    wanted: ExportPlan,
    base: str,
    progress: Callable[[ExportProgress], None] | None = None,
) -> ExportProgress:
    """Write every shard of the plan ``out`` settles on that is not complete yet."""
    plan = settled_plan(out, wanted)
    dim = await repository.vector_dim(plan.model) if plan.model else 0
    state = ExportProgress(shards=plan.shards, started=time.monotonic())
    for shard in range(plan.shards):
        if marker(out, shard).exists():
            state.done_shards += 1
            state.kept_shards += 1
            continue
        ids = plan.ids[shard * plan.shard_size : (shard + 1) * plan.shard_size]
        await _write_shard(storage, out, plan, shard, ids, dim, base, state)
        state.done_shards += 1
        if progress is not None:
            progress(state)
    return state


async def _write_shard(
    storage: Storage,
    out: Path,
    plan: ExportPlan,
    shard: int,
    ids: list[int],
    dim: int,
    base: str,
    state: ExportProgress,
) -> None:
    """One shard: the still-published images of ``ids``, in plan order."""
    rows = await repository.samples(ids)
    tags, colours = await repository.tags(ids), await repository.colours(ids)
    vectors = await repository.vectors(plan.model, ids) if dim else {}
    unpublished = missing = 0
    with writing(out, shard, plan.format, dim) as writer:
        for image_id in ids:
            row = rows.get(image_id)
            if row is None:
                unpublished += 1
                continue
            try:
                image = await storage.get(str(row["key"]))
            except FileNotFoundError:
                missing += 1
                continue
            raw = vectors.get(image_id)
            vector = np.frombuffer(raw, dtype="<f4") if raw and len(raw) == 4 * dim else None
            key = sample_key(shard, writer.samples)
            sample = sample_of(
                row,
                key,
                base,
                tags.get(image_id, []),
                colours.get(image_id, []),
                vector is not None,
            )
            writer.add(sample, image, vector)
        stats = {
            "shard": shard,
            "planned": len(ids),
            "written": writer.samples,
            "bytes": writer.bytes,
            "unpublished_since_plan": unpublished,
            "missing_in_storage": missing,
            "model": plan.model,
        }
        writer.finish(stats)
    state.samples += writer.samples
    state.bytes += writer.bytes
    state.left_out += unpublished + missing
