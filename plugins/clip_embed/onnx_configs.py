"""optimum ONNX configs narrowed to the embedding: a tower exports only the inputs and
outputs the clip embedder feeds and reads, whatever the stock config lists."""

from __future__ import annotations

import copy
from typing import Any

Axes = dict[str, dict[int, str]]
"""Each input's or output's name → its dynamic axes (``{0: "batch_size"}``)."""
BATCH = {0: "batch_size"}
"""The axes of a tensor whose first dimension is the batch."""


def narrowed(name: str, base: type, outputs: Axes, inputs: Axes | None = None) -> type:
    """A subclass of the optimum config ``base`` whose ``outputs`` (and ``inputs``, when
    given; else the stock ones) are these; each read gets its own copy to change."""
    namespace: dict[str, Any] = {"outputs": property(lambda self: copy.deepcopy(outputs))}
    if inputs is not None:
        namespace["inputs"] = property(lambda self: copy.deepcopy(inputs))
    return type(name, (base,), namespace)
