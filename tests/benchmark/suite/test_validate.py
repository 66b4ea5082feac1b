"""The validator accepts sound tasks and rejects each kind of unsound one, naming the check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.suite import load_suite
from benchmark.suite.validate import (
    CHECKS,
    TaskReport,
    ValidationConfig,
    format_table,
    validate_task,
    validate_tasks,
)
from benchmark.task import load_task

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tasks"
PROBES_ONLY = ValidationConfig(device="cpu", measure=False, task_timeout_s=120)


@pytest.fixture(scope="module")
def bad_reports() -> dict[str, TaskReport]:
    suite = load_suite(FIXTURES / "bad")
    tasks = [t for t in suite.tasks if t.name != "sleeps"]
    return {r.task_id: r for r in validate_tasks(tasks, PROBES_ONLY, progress=False)}


@pytest.fixture(scope="module")
def good_reports() -> dict[str, TaskReport]:
    suite = load_suite(FIXTURES / "good")
    return {r.task_id: r for r in validate_tasks(list(suite.tasks), PROBES_ONLY, progress=False)}


def test_good_tasks_pass_every_check(good_reports):
    assert set(good_reports) == {"level1/row_softmax", "level1/scale_shift_bf16", "level2/linear_tanh_sum"}
    for r in good_reports.values():
        assert r.ok, r.failures
        assert set(r.checks) == set(CHECKS)
        assert "fail" not in r.checks.values()
        for check in (
            "load",
            "run",
            "finite",
            "deterministic",
            "not_zero",
            "not_constant",
            "not_noise",
            "inputs_matter",
        ):
            assert r.checks[check] == "pass", (r.task_id, check)
    assert good_reports["level2/linear_tanh_sum"].checks["weights_matter"] == "pass"
    assert good_reports["level1/row_softmax"].checks["weights_matter"] == "skip"  # no parameters
    assert good_reports["level1/scale_shift_bf16"].checks["alt_shapes"] == "pass"
    assert good_reports["level1/row_softmax"].checks["not_input"] == "pass"  # same shape as its input


@pytest.mark.parametrize(
    "task_id, check",
    [
        ("level1/zero_output", "not_zero"),
        ("level1/constant_output", "not_constant"),
        ("level1/loose_tolerance", "not_noise"),
        ("level1/returns_input", "not_input"),
        ("level1/nondeterministic_rand", "deterministic"),
        ("level1/nondeterministic_clock", "deterministic"),
        ("level1/ignores_input", "inputs_matter"),
        ("level1/ignores_second_input", "inputs_matter"),
        ("level1/ignores_weights", "weights_matter"),
        ("level1/non_finite_output", "finite"),
        ("level1/raises_in_forward", "run"),
        ("level1/missing_import", "load"),
    ],
)
def test_bad_task_is_rejected_by_the_right_check(bad_reports, task_id, check):
    r = bad_reports[task_id]
    assert not r.ok
    assert r.checks[check] == "fail", r.failures
    assert any(f.startswith(f"{check}: ") for f in r.failures)


def test_degenerate_output_reasons_name_the_probe(bad_reports):
    zero = bad_reports["level1/zero_output"]
    assert any("all-zero output passes the tolerance check" in f for f in zero.failures)
    assert "input 1 does not change the output" in " ".join(
        bad_reports["level1/ignores_second_input"].failures
    )


def test_one_broken_task_does_not_stop_the_others(bad_reports):
    # Every file that loads got a report, including those after the ones that raise.
    assert len(bad_reports) == 12
    assert bad_reports["level1/returns_input"].checks["run"] == "pass"


def test_a_hanging_task_is_stopped_at_its_deadline():
    task = load_task(FIXTURES / "bad" / "level1" / "sleeps.py", root=FIXTURES / "bad")
    r = validate_task(task, ValidationConfig(device="cpu", measure=False, task_timeout_s=0.5))
    assert not r.ok and r.checks["run"] == "fail"
    assert "timeout" in r.failures[0]
    assert r.seconds < 10


def test_fast_mode_uses_the_largest_alternate_shapes():
    task = load_task(FIXTURES / "good" / "level1" / "scale_shift_bf16.py", root=FIXTURES / "good")
    r = validate_task(task, ValidationConfig(device="cpu", fast=True, measure=False))
    assert r.ok and r.shapes == "alt1"  # (5, 48) rather than (1, 48)
    assert r.flops is None and r.reference is None  # counts and times belong to full shapes only
    assert r.checks["time"] == "skip" and r.checks["memory"] == "skip"


def test_measured_report_has_counts_and_time_and_round_trips():
    task = load_task(FIXTURES / "good" / "level2" / "linear_tanh_sum.py", root=FIXTURES / "good")
    from benchmark.evaluate.timing import TimingConfig

    cfg = ValidationConfig(
        device="cpu",
        timing=TimingConfig(
            warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_seconds=0.05
        ),
    )
    r = validate_task(task, cfg)
    assert r.ok
    assert r.flops == 2 * 16 * 32 * 24  # the linear layer's matmul
    assert r.bytes == (16 * 32 + 16 * 24 + 32 * 24 + 24 + 16 * 24) * 4
    assert r.reference is not None and r.reference.runs >= 3
    assert r.checks["time"] == "skip"  # bounds are for the GPU
    back = TaskReport.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back == r
    assert "level2/linear_tanh_sum" in format_table([r])


@pytest.mark.gpu
def test_on_the_gpu_time_and_memory_are_measured_and_bounded():
    task = load_task(FIXTURES / "good" / "level2" / "linear_tanh_sum.py", root=FIXTURES / "good")
    r = validate_task(task, ValidationConfig(device="cuda", min_ms=0.0))
    assert r.ok, r.failures
    assert r.checks["time"] == "pass" and r.checks["memory"] == "pass"
    assert r.reference is not None and r.peak_memory_bytes > 0
    tight = validate_task(task, ValidationConfig(device="cuda", min_ms=0.0, max_memory_bytes=16))
    assert tight.checks["memory"] == "fail"
    slow_floor = validate_task(task, ValidationConfig(device="cuda", min_ms=1e6, max_ms=2e6))
    assert slow_floor.checks["time"] == "fail"


FP8_TASK = '''"""Needs FP8 tensor cores."""
import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "dtype": "float8_e4m3fn", "requires": ["fp8"]}


class Model(nn.Module):
    def forward(self, x):
        return x.float() * 2.0, (x.float() * 0.5).to(torch.float8_e4m3fn)


def get_inputs():
    return [torch.randn(8, 16).to(torch.float8_e4m3fn)]


def get_init_inputs():
    return []
'''


@pytest.fixture
def fp8_suite(tmp_path):
    (tmp_path / "level1").mkdir()
    (tmp_path / "level1" / "needs_fp8.py").write_text(FP8_TASK)
    return tmp_path


@pytest.fixture
def no_fp8_gpu(monkeypatch):
    """A CUDA device below compute capability 8.9, as the requirement check sees it."""
    from benchmark.evaluate import device_check

    monkeypatch.setattr(device_check, "cuda_capability", lambda device: ((8, 0), "NVIDIA A100"))


def test_a_task_the_gpu_cannot_run_is_skipped_with_the_reason(fp8_suite, no_fp8_gpu):
    task = load_task(fp8_suite / "level1" / "needs_fp8.py", root=fp8_suite)
    r = validate_task(task, ValidationConfig(device="cuda"))
    assert r.skipped == "requires FP8 tensor cores (compute capability 8.9 or newer); NVIDIA A100 is 8.0"
    assert not r.ok and not r.failed and r.failures == ()
    assert set(r.checks.values()) == {"skip"}
    table = format_table([r])
    assert "level1/needs_fp8" in table and " skip " in table
    assert table.splitlines()[-1].startswith("1 tasks, 0 passed, 0 failed, 1 skipped on this device")
    assert TaskReport.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_on_the_cpu_an_fp8_task_is_validated(fp8_suite):
    task = load_task(fp8_suite / "level1" / "needs_fp8.py", root=fp8_suite)
    from benchmark.evaluate.timing import TimingConfig

    quick = TimingConfig(warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_seconds=0.05)
    r = validate_task(task, ValidationConfig(device="cpu", timing=quick))
    assert r.skipped is None and r.ok, r.failures  # fp8 in and out: compared, probed and timed on the CPU
    assert r.reference is not None and r.bytes == 8 * 16 * (1 + 4 + 1)


def test_validate_command_skips_without_failing_and_the_manifest_keeps_nothing(fp8_suite, no_fp8_gpu, capsys):
    from benchmark.suite import load_suite
    from benchmark.suite.cli import main
    from benchmark.suite.manifest import Manifest, merge

    assert main(["validate", "--suite", str(fp8_suite), "--device", "cuda", "--quiet"]) == 0
    assert "1 skipped on this device" in capsys.readouterr().out
    suite = load_suite(fp8_suite)
    report = validate_task(suite.tasks[0], ValidationConfig(device="cuda"))
    assert merge(Manifest(), suite, [report], "NVIDIA A100", None).tasks == {}  # nothing was measured


COUNTER_SENSITIVE = '''
"""A sound task whose forward rounds otherwise under a dispatch mode, as a fused op that the FLOP
counter sees decomposed does (a bf16 SiLU backward on the GPU)."""
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

SOLBENCH = {"level": 1, "dtype": "float32"}


class Model(torch.nn.Module):
    def forward(self, x):
        nudge = 0.1 if _get_current_dispatch_mode() is not None else 0.0
        return torch.tanh(x) + nudge


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
'''


def test_the_determinism_check_compares_two_plain_runs(tmp_path):
    """The FLOP count is taken on a forward of its own, never on the run the determinism check
    compares: a counter's decomposition is no fault of the task."""
    path = tmp_path / "level1" / "counter_sensitive.py"
    path.parent.mkdir()
    path.write_text(COUNTER_SENSITIVE)
    task = load_task(path, root=tmp_path)
    r = validate_task(task, ValidationConfig(device="cpu", measure=True, task_timeout_s=120))
    assert r.checks["deterministic"] == "pass", r.failures
    assert r.bytes  # counted all the same
