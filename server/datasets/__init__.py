"""rk.server.datasets: the published archive as a dataset, in the shards the field's tools use.

``rk export dataset`` writes img2dataset's layout: numbered tar shards of ``.jpg``, ``.json``
and ``.txt`` per sample (webdataset), or parquet shards with the image bytes, each with a
parquet of metadata and, with embeddings, a ``.npy`` whose rows follow the parquet's order
(clip-retrieval's). Only published images leave; the export is planned once and resumable.
"""

from __future__ import annotations

from rk.server.datasets.export import ExportPlan, ExportProgress, export_dataset, plan_export
from rk.server.datasets.filters import ExportFilters

__all__ = ["ExportFilters", "ExportPlan", "ExportProgress", "export_dataset", "plan_export"]
