"""Execution-provider choice: CUDA when onnxruntime offers it, else CPU; overrides checked."""

from __future__ import annotations

import pytest

from rk.plugins.clip_embed.providers import CPU, CUDA, ProviderError, resolve

GPU_BUILD = ["TensorrtExecutionProvider", CUDA, CPU]
CPU_BUILD = ["AzureExecutionProvider", CPU]


def test_default_prefers_cuda_then_falls_back_to_cpu() -> None:
    assert resolve([], GPU_BUILD) == [CUDA, CPU]
    assert resolve([], CPU_BUILD) == [CPU]


def test_short_names_and_full_names_are_accepted_once() -> None:
    assert resolve(["cuda", "CPU", "CPUExecutionProvider"], GPU_BUILD) == [CUDA, CPU]
    assert resolve(["tensorrt", "cuda"], GPU_BUILD) == [
        "TensorrtExecutionProvider",
        CUDA,
    ]


def test_unavailable_provider_names_what_is_available() -> None:
    with pytest.raises(ProviderError, match="'cuda' is not available.*AzureExecutionProvider, CPU"):
        resolve(["cuda"], CPU_BUILD)


def test_this_machine_resolves_to_what_onnxruntime_offers() -> None:
    import onnxruntime as ort

    available = ort.get_available_providers()
    expected = [CUDA, CPU] if CUDA in available else [CPU]
    assert resolve([], available) == expected
