"""Which ONNX Runtime execution providers to ask for, and which one a session really got.

onnxruntime-gpu lists CUDA as available even on a machine without a usable GPU and then
silently runs on CPU, so the provider that matters is the one the session reports after
it was created, not the one that was requested.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from rk.core.api.errors import RkError
from rk.plugins.clip_embed.model_dir import ModelDirError

log = logging.getLogger("rk.plugins.clip_embed")

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
ALIASES = {
    "cpu": CPU,
    "cuda": CUDA,
    "gpu": CUDA,
    "tensorrt": "TensorrtExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "dml": "DmlExecutionProvider",
}


class ProviderError(RkError):
    """A requested execution provider is not available in the installed onnxruntime."""


def resolve(requested: Sequence[str], available: Sequence[str]) -> list[str]:
    """The provider list for a session: ``requested`` (aliases allowed) or CUDA-then-CPU.

    Args:
        requested: ``vision.providers``; empty means "CUDA when available, else CPU".
        available: ``onnxruntime.get_available_providers()``.

    Raises:
        ProviderError: a requested provider is not in ``available``.
    """
    if not requested:
        return [CUDA, CPU] if CUDA in available else [CPU]
    chosen: list[str] = []
    for name in requested:
        full = ALIASES.get(name.lower(), name)
        if full not in available:
            raise ProviderError(
                f"execution provider {name!r} is not available in this onnxruntime; "
                f"available: {', '.join(available)}"
            )
        if full not in chosen:
            chosen.append(full)
    return chosen


def new_session(path: str, requested: Sequence[str]) -> tuple[Any, list[str]]:
    """An InferenceSession on the resolved providers, and the providers that were asked for.

    The active provider (``session.get_providers()[0]``) is logged, with a warning when it
    is not the first one requested: that is onnxruntime's silent fallback.
    """
    import onnxruntime as ort

    providers = resolve(requested, ort.get_available_providers())
    options = ort.SessionOptions()
    options.log_severity_level = 3  # onnxruntime's own fallback chatter; we report it below
    try:
        session = ort.InferenceSession(path, sess_options=options, providers=providers)
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad graphs
        raise ModelDirError(f"{path}: cannot load ONNX model ({exc})".splitlines()[0]) from None
    active = session.get_providers()[0]
    if active != providers[0]:
        log.warning("%s: asked for %s but onnxruntime runs it on %s", path, providers[0], active)
    else:
        log.info("%s: running on %s", path, active)
    return session, providers
