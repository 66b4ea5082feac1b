"""Backward tasks: a candidate that hands the gradient to PyTorch's autograd has no kernel of its own.
The static rules name what they can see (torch.enable_grad, torch.autograd.grad, functional ops, also
when reached through a torch.nn submodule), and the runtime op census sees every ATen op of the
forward and of the backward autograd runs, as a C++ extension's calls are seen."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch

from benchmark.evaluate.anticheat.census import census
from benchmark.evaluate.anticheat.static import analyze
from benchmark.evaluate.harness import evaluate
from benchmark.task import load_task
from benchmark.verdict import Status

HERE = Path(__file__).parent
TASK = HERE.parent / "benchmark" / "data" / "backward" / "rmsnorm_backward_fp32.py"

# cheat file -> what the static rules name (detail prefixes)
CHEATS = {
    "autograd_backward": {
        "calls torch.enable_grad",
        "calls torch.autograd.grad",
        "uses torch.nn.functional.rms_norm",
    },
    "autograd_methods_backward": {"calls torch.enable_grad"},
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_the_static_rules_name_the_autograd_calls(name):
    found = analyze((HERE / f"{name}.py").read_text())
    assert {f.flag for f in found} == {"torch_compute_op"}
    assert {f.detail for f in found} == CHEATS[name]


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_autograd_as_the_answer_is_a_cheat_strict_and_flagged_at_run_time(name, fast_eval):
    task, code = load_task(TASK), (HERE / f"{name}.py").read_text()
    strict = evaluate(task, code, fast_eval)
    assert strict.status is Status.CHEAT and "torch_compute_op" in strict.flags, strict.error
    lenient = evaluate(task, code, dataclasses.replace(fast_eval, strict=False, measure=False))
    # right answers, and the census names the ops autograd ran (the static finding stands beside it)
    assert lenient.status is Status.PASS, lenient.error
    assert set(lenient.flags) == {"torch_compute_op", "aten_compute_op"}


def _sigmoid_backward(x, dy):
    with torch.enable_grad():
        x = x.detach().requires_grad_()
        torch.sigmoid(x).backward(dy)
    return x.grad


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_the_census_sees_the_ops_autograd_runs_in_the_backward(device):
    """On CUDA the autograd engine runs the backward on a device thread of its own; the census
    (a TorchDispatchMode) still sees it, since the engine carries the caller's dispatch modes."""
    x, dy = torch.randn(4, 8, device=device), torch.randn(4, 8, device=device)
    with torch.no_grad():
        dx, ops = census(_sigmoid_backward, x, dy)
    assert "sigmoid_backward" in ops and dx is not None
