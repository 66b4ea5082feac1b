"""The judge decides from what it sees itself: the candidate's process holds nothing of the verdict
(a candidate that walks its frames or changes the checker in its own process gains nothing), its
reported times are checked against the wall time the judge saw and against the reference around
them, and its end mid-sample is named."""

from __future__ import annotations

import contextlib
import dataclasses
import types

import pytest
import torch

from benchmark.evaluate.boundary import Done, KernelRecord, Kernels
from benchmark.evaluate.harness import evaluate
from benchmark.evaluate.link import RemoteArm
from benchmark.evaluate.timing import Interleaved, Warmup
from benchmark.task import load_task
from benchmark.verdict import Status, TimingStats

# Walks every frame of its process for a tensor shaped like its input that is not its input (the
# expected output, in a harness that keeps it beside the candidate) and returns it; computes zeros
# otherwise.
FRAME_WALKER = """
import sys

import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        frame = sys._getframe(1)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                for v in value if isinstance(value, list | tuple) else [value]:
                    if isinstance(v, torch.Tensor) and v is not x and v.shape == x.shape and not v.equal(x):
                        return v.clone()
            frame = frame.f_back
        return torch.zeros_like(x)
"""
# Replaces the comparison functions of its own process: the judge's comparison is elsewhere.
CHECKER_PATCH = """
import torch

import benchmark.evaluate.correctness as correctness

correctness.compare_outputs = lambda *a, **k: correctness.Comparison(True)
torch.isclose = lambda a, b, **k: torch.ones_like(a, dtype=torch.bool)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2.0
"""


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


@pytest.fixture
def lenient(fast_eval):
    return dataclasses.replace(fast_eval, strict=False)


def test_a_frame_walk_finds_nothing_to_return(task, lenient):
    v = evaluate(task, FRAME_WALKER, lenient)
    assert v.status is Status.INCORRECT, v.error  # its own computation: zeros
    assert "got 0" in v.error


def test_the_checker_of_the_candidates_process_decides_nothing(task, lenient):
    v = evaluate(task, CHECKER_PATCH, lenient)
    assert v.status is Status.INCORRECT, v.error
    assert "harness_tampered" in v.flags  # what it changed is named beside the verdict


def test_the_candidates_process_dying_mid_trial_is_named(task, lenient, data_dir):
    v = evaluate(task, (data_dir / "candidates" / "segfault.py").read_text(), lenient)
    assert v.status is Status.RUNTIME_ERROR
    assert "the candidate's process killed by SIGSEGV during the correctness trials" in v.error, v.error


def _stats(ms: float) -> TimingStats:
    return TimingStats(runs=20, median_ms=ms, mean_ms=ms, std_ms=0.0, min_ms=ms, max_ms=ms, rel_err=0.0)


def _timed(ref: list[float], cand_ms: float) -> Interleaved:
    return Interleaved(
        [_stats(sorted(ref)[len(ref) // 2]), _stats(cand_ms)],
        None,
        None,
        [ref, [cand_ms] * len(ref)],
        [0.0] * len(ref),
        Warmup(1, 0.0, None),
        0.1,
        [0.0, 0.0],
    )


def _arms(
    remote_walls: list[float], remote_claims: list[float], own_walls: list[float], own_claims: list[float]
):
    remote = RemoteArm(client=None, calibration=None, n_sets=3)
    remote.walls_ms, remote.claimed_ms = remote_walls, remote_claims
    reference = types.SimpleNamespace(walls_ms=own_walls, claimed_ms=own_claims, waits_ms={})
    return reference, remote


@pytest.mark.parametrize(
    ("walls", "claims", "flagged"),
    [
        ([1.3] * 20, [1.0] * 20, False),  # the reference's own bracket (0.2 ms) and the round trip (0.1 ms)
        ([3.3] * 20, [1.0] * 20, True),  # 2 ms per call it did not report
        ([1.3] * 20, [1.5] * 19 + [1.0], True),  # reports longer than the judge saw it take
    ],
    ids=["honest", "unreported", "impossible"],
)
def test_reported_times_are_held_to_the_wall_time(make_judge, monkeypatch, walls, claims, flagged):
    from benchmark.evaluate import judge as judge_module

    monkeypatch.setattr(judge_module, "FLAG_UNACCOUNTED", True)  # recorded only, until measured on the GPU
    judge = make_judge()
    reference, remote = _arms(walls, claims, [1.2] * 20, [1.0] * 20)
    judge.check_reported_times(reference, remote, 0.1, None)
    assert ("timing_mismatch" in judge.flags) is flagged, judge.flag_details


def test_too_few_calls_are_not_judged_for_unreported_time(make_judge, monkeypatch):
    from benchmark.evaluate import judge as judge_module

    monkeypatch.setattr(judge_module, "FLAG_UNACCOUNTED", True)
    judge = make_judge()
    reference, remote = _arms([3.3] * 5, [1.0] * 5, [1.2] * 5, [1.0] * 5)
    judge.check_reported_times(reference, remote, 0.1, None)
    assert not judge.flags


@pytest.mark.parametrize(
    ("ref", "waits", "flagged"),
    [
        ([1.0, 1.01] * 10, {i: 0.02 for i in range(20)}, False),
        ([1.0, 2.0] * 10, {i: 0.02 for i in range(20)}, True),  # slower right after the candidate
        ([1.0, 1.0] * 10, {i: 0.02 if i % 2 == 0 else 1.5 for i in range(20)}, True),  # waited for the GPU
    ],
    ids=["alike", "slower-after", "waited-after"],
)
def test_work_left_running_shows_on_the_reference_that_follows(make_judge, ref, waits, flagged):
    judge = make_judge()
    judge.cuda = True
    reference = types.SimpleNamespace(waits_ms=waits)
    judge.check_left_work(reference, _timed(ref, 1.0))
    assert ("deferred_work" in judge.flags) is flagged, judge.flag_details
    assert "reference_after_candidate" in judge.env


def test_on_the_cpu_the_halves_are_recorded_never_flagged(make_judge):
    judge = make_judge()
    judge.check_left_work(types.SimpleNamespace(waits_ms={}), _timed([1.0, 3.0] * 10, 1.0))
    assert not judge.flags and "reference_after_candidate" not in judge.env


def test_unreported_time_is_recorded_not_flagged_by_default(make_judge):
    judge = make_judge()
    reference, remote = _arms([3.3] * 20, [1.0] * 20, [1.2] * 20, [1.0] * 20)
    judge.check_reported_times(reference, remote, 0.1, None)
    assert not judge.flags and float(judge.env["timing_unaccounted_ms"]) == pytest.approx(2.0)


class _ProfiledProcess:
    """The candidate's process's side of the profile requests and the device lock, in one: each
    profiled call runs one kernel of the next of `kernel_ms`, and the lock's hold at each call is kept."""

    def __init__(self, kernel_ms: list[float]):
        self.kernel_ms, self.hold, self.holds_at_call = list(kernel_ms), None, []

    @contextlib.contextmanager
    def _held(self, hold: str):
        self.hold = hold
        yield
        self.hold = None

    def exclusive(self):
        return self._held("exclusive")

    def shared(self):
        return self._held("shared")

    def ask(self, request, expected):
        if request.step == "call":
            self.holds_at_call.append(self.hold)
        if request.step == "stop":
            return Kernels((KernelRecord("k", self.kernel_ms.pop(0) * 1e3, True),))
        return Done()


@pytest.mark.parametrize(
    ("kernel_ms", "tries", "flagged"),
    [
        ([0.9], 1, False),
        ([3.0, 1.2], 2, False),  # a neighbour outside the lock slowed the first try
        ([3.0, 3.0, 3.0], 3, True),  # the timed calls hid work that is there every time
    ],
    ids=["agrees", "slowed-once", "hidden-work"],
)
def test_the_profile_is_taken_alone_and_again_before_a_mismatch(make_judge, kernel_ms, tries, flagged):
    judge = make_judge()
    process = _ProfiledProcess(kernel_ms)
    judge.client = judge.lock = process
    judge.times = {"candidate_time": {"median_ms": 1.0}}
    judge.profile_candidate()
    assert process.holds_at_call == ["exclusive"] * tries
    assert len(judge.env["profile_kernels_ms"].split()) == tries
    assert ("timing_mismatch" in judge.flags) is flagged, judge.flag_details


class _HoldLog:
    """A device lock that lists each hold it gives: "shared" or "exclusive"."""

    def __init__(self):
        self.holds: list[str] = []

    @contextlib.contextmanager
    def _held(self, hold: str):
        self.holds.append(hold)
        yield

    def exclusive(self):
        return self._held("exclusive")

    def shared(self):
        return self._held("shared")


@pytest.mark.parametrize(
    ("baseline", "kept", "holds", "fresh"),
    [
        ("eager", {}, ["shared"], False),
        ("compile", {"compile_time": {"median_ms": 1.0}}, ["shared"], False),
        ("compile", {}, ["exclusive"], True),
    ],
    ids=["eager", "compile-kept", "compile-timed-here"],
)
def test_the_timer_is_calibrated_sharing_the_device_unless_something_is_timed(
    make_judge, monkeypatch, baseline, kept, holds, fresh
):
    """Each exclusive hold drains every other lane's device work first: the reference's timer holds the
    device alone only where torch.compile's time is taken here, as the candidate's process calibrates
    its own bracket sharing it."""
    from benchmark.evaluate import judge as judge_module

    judge = make_judge(baseline=baseline)
    judge.lock = _HoldLog()
    monkeypatch.setattr(judge_module.torch, "compile", lambda model: model)
    monkeypatch.setattr(
        judge_module,
        "time_model",
        lambda timer, program, model, seed: TimingStats(1, 2.0, 2.0, 0.0, 2.0, 2.0, 0.0),
    )
    monkeypatch.setattr(judge, "alone", lambda timed: timed())
    assert judge.reference_timing(program=None, model=torch.nn.Identity(), kept=kept) is fresh
    assert judge.lock.holds == holds
    assert ("compile_time" in judge.times) is (baseline == "compile")


class _SeededProgram:
    """A task program whose input set of seed s is 100 values of s."""

    def inputs(self, seed, alt=None, scale=1.0):
        return [torch.full((100,), float(seed))]

    def init_values(self, seed):
        import base64

        torch.manual_seed(seed)
        return [], {"cpu": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()}


def _doubling(wrong_on: float | None = None):
    class Model(torch.nn.Module):
        def forward(self, x):
            return x * (3.0 if x[0].item() == wrong_on else 2.0)

    return Model


@pytest.mark.parametrize(("wrong_on", "failure"), [(None, None), (1002.0, "trial 2")], ids=["right", "wrong"])
def test_expected_outputs_past_the_device_budget_are_computed_again_for_their_comparison(
    served_judge, monkeypatch, wrong_on, failure
):
    from benchmark.evaluate import judge as judge_module
    from benchmark.evaluate.judge import Deferred
    from benchmark.evaluate.program import trial_plan

    # Room for two input sets: 400 bytes eager and 800 exact each.
    monkeypatch.setattr(judge_module, "REFERENCE_DEVICE_BYTES", 2 * 1200)
    program = _SeededProgram()
    judge = served_judge(_doubling(wrong_on), program, trials=3)
    judge.cuda = True
    model = _doubling()()
    judge.program, judge.reference_model = program, model  # as `run` and `reference_phase` leave them
    plan = trial_plan(3, 0, 0, 0.0)
    ref, _ = judge.reference_outputs(program, model, plan, False)

    assert [type(o).__name__ for o in ref["outputs"]] == ["Tensor", "Tensor", "Deferred"]
    assert all(isinstance(o, torch.Tensor) for o in ref["timed"])  # compared in the exclusive hold: kept
    assert all(isinstance(o, Deferred) for o in ref["restated"])
    assert judge.env["reference_deferred_sets"] == str(1 + len(ref["restated"]))
    out, exact = judge.expected(ref["outputs"][2], ref["exact"][2])
    assert out.equal(torch.full((100,), 2004.0)) and exact.dtype == torch.float64
    result = judge.check_candidate(program, plan, ref)
    assert result is None if failure is None else result.startswith(failure), result


KILLED_REFERENCE = """
import os
import signal

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        os.kill(os.getpid(), signal.SIGKILL)  # as the host's out-of-memory killer would


def get_inputs():
    return [torch.randn(8)]


def get_init_inputs():
    return []
"""
KILLED_CANDIDATE = """
import ctypes

import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        libc = ctypes.CDLL(None)
        libc.kill(libc.getpid(), 9)  # as the host's out-of-memory killer would
"""


def test_a_reference_killed_by_the_host_is_the_tasks_failure(tmp_path, lenient):
    from benchmark.evaluate.harness import TaskError

    path = tmp_path / "killed_reference.py"
    path.write_text(KILLED_REFERENCE)
    with pytest.raises(TaskError, match="the reference's process ended during the reference phase.*SIGKILL"):
        evaluate(load_task(path), "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n", lenient)


def test_a_candidate_killed_by_the_host_is_named_so(task, lenient):
    v = evaluate(task, KILLED_CANDIDATE, lenient)
    assert v.status is Status.RUNTIME_ERROR
    assert "killed by SIGKILL (SIGKILL: the host's out-of-memory killer, most likely)" in v.error, v.error


KERNELBENCH_CUDA_TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2.0 + 1.0


def get_inputs():
    return [torch.randn(64, 33).cuda()]


def get_init_inputs():
    return []
"""
SCALE_SHIFT = """
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0
"""


def test_a_kernelbench_task_that_calls_cuda_is_judged_on_the_cpu(tmp_path, lenient):
    path = tmp_path / "model_ex_scale_shift.py"
    path.write_text(KERNELBENCH_CUDA_TASK)
    v = evaluate(load_task(path), SCALE_SHIFT, lenient)
    assert v.status is Status.PASS, v.error


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_in_a_tasks_forward_on_the_cpu_is_a_one_line_task_error(tmp_path, lenient):
    from benchmark.evaluate.harness import TaskError

    path = tmp_path / "forward_on_cuda.py"
    path.write_text(KERNELBENCH_CUDA_TASK.replace("return x * 2.0 + 1.0", "return (x * 2.0 + 1.0).cuda()"))
    with pytest.raises(TaskError) as failed:
        evaluate(load_task(path), SCALE_SHIFT, lenient)
    assert str(failed.value).startswith("reference failed: the task asks for CUDA in its own code")
    assert "\n" not in str(failed.value)


def test_the_candidates_process_is_a_lock_member_before_its_judge_starts(
    task, lenient, tmp_path, monkeypatch
):
    """Admitted only once loaded, its CUDA context's making (a foreign process to NVML) held every
    other lane's timing in its neighbour wait, inside the device's exclusive hold (83 s of 616 over
    the suite, dev/LOG.md 2026-12-07): the parent admits it as soon as it has started it."""
    from benchmark.evaluate import gpu_lock, sandbox

    lock, order = tmp_path / "device-0", []
    real_launch, real_admit = sandbox._launch, gpu_lock.admit

    def launch(role, *args, **kwargs):
        child = real_launch(role, *args, **kwargs)
        order.append((role, child.proc.pid))
        return child

    def admit(path, pid):
        order.append(("admit", pid))
        real_admit(path, pid)

    monkeypatch.setattr(sandbox, "_launch", launch)
    monkeypatch.setattr(gpu_lock, "admit", admit)
    v = evaluate(task, SCALE_SHIFT, lenient, device_lock=str(lock))
    assert v.status is Status.PASS, v.error
    [(first, candidate), (second, admitted), (third, _)] = order
    assert (first, second, third) == ("candidate", "admit", "judge")
    assert admitted == candidate


def test_the_candidates_process_stays_a_lock_member_until_reaped(task, lenient, tmp_path, monkeypatch):
    """Dismissed while alive, its last kernels would read as a neighbour's in the other lanes' checks
    and make their timings wait and run again; the parent dismisses it once reaped."""
    from pathlib import Path

    from benchmark.evaluate import gpu_lock

    lock, real, seen = tmp_path / "device-0", gpu_lock.dismiss, []

    def dismiss(path, pid):
        seen.append((pid, Path(f"{path}.members", str(pid)).exists(), Path(f"/proc/{pid}").exists()))
        real(path, pid)

    monkeypatch.setattr(gpu_lock, "dismiss", dismiss)
    v = evaluate(task, SCALE_SHIFT, lenient, device_lock=str(lock))
    assert v.status is Status.PASS, v.error
    [(pid, member, alive)] = seen
    assert member and not alive  # still a member when dismissed, and already gone
    assert not Path(f"{lock}.members", str(pid)).exists()
