"""What a device can run: a task's SOLBENCH `requires` is checked against the CUDA device's compute
capability (faked here), the reason is one line naming what is missing, a task that requires
nothing never skips, and the CPU meets every requirement."""

from __future__ import annotations

import pytest

from benchmark.evaluate import device_check
from benchmark.evaluate.device_check import CAPABILITIES, unmet_requirement
from benchmark.task import REQUIREMENTS


@pytest.fixture
def gpu(monkeypatch):
    """Fake the CUDA device's compute capability: gpu((8, 0), "NVIDIA A100")."""

    def fake(capability: tuple[int, int], name: str = "Test GPU") -> None:
        monkeypatch.setattr(device_check, "cuda_capability", lambda device: (capability, name))

    return fake


def test_every_requirement_a_task_may_name_has_a_capability():
    assert set(CAPABILITIES) == set(REQUIREMENTS)


@pytest.mark.parametrize("capability", [(8, 0), (8, 6), (7, 5)])
def test_a_gpu_below_8_9_lacks_fp8_and_says_so_in_one_line(gpu, capability):
    gpu(capability, "NVIDIA A100-SXM4-80GB")
    reason = unmet_requirement(["fp8"], "cuda")
    assert reason == (
        "requires FP8 tensor cores (compute capability 8.9 or newer); "
        f"NVIDIA A100-SXM4-80GB is {capability[0]}.{capability[1]}"
    )
    assert unmet_requirement(("fp8",), "cuda:1") == reason


@pytest.mark.parametrize("capability", [(8, 9), (9, 0), (10, 0), (12, 0)])
def test_ada_hopper_and_blackwell_have_fp8(gpu, capability):
    gpu(capability)
    assert unmet_requirement(["fp8"], "cuda") is None


def test_a_task_without_requirements_never_skips(gpu):
    gpu((5, 2), "an old GPU")
    assert unmet_requirement([], "cuda") is None
    assert unmet_requirement((), "cuda:0") is None


def test_the_cpu_meets_every_requirement(monkeypatch):
    monkeypatch.setattr(device_check, "cuda_capability", lambda device: pytest.fail("asked a GPU"))
    assert unmet_requirement(["fp8"], "cpu") is None
