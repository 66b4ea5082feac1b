"""Verdicts that hold, on the CPU: honest reductions in other summation orders pass against the exact
reference, a precision downgrade and a wrong reduction fail, a memoized output is caught, and the
verdict records which reference and bound judged it."""

from __future__ import annotations

import dataclasses

import pytest

from benchmark.evaluate.harness import evaluate
from benchmark.task import load_task
from benchmark.verdict import Status


@pytest.fixture(scope="module")
def wide_task(data_dir):
    return load_task(data_dir / "wide" / "row_sum_wide.py")


def _eval(task, data_dir, name, config):
    return evaluate(task, (data_dir / "candidates" / f"{name}.py").read_text(), config)


@pytest.mark.parametrize("name", ["rowsum_double", "rowsum_blocked"])
def test_honest_wide_row_sums_pass(wide_task, data_dir, fast_eval, name):
    v = _eval(wide_task, data_dir, name, fast_eval)
    assert v.status is Status.PASS and not v.flags, v.error
    assert v.correctness.reference == "float64"
    assert "max|eager - exact|" in v.correctness.rule and v.correctness.max_eager_err > 0


@pytest.mark.parametrize("name", ["rowsum_half_acc", "rowsum_drops_last"])
def test_downgraded_and_wrong_row_sums_fail(wide_task, data_dir, fast_eval, name):
    v = _eval(wide_task, data_dir, name, dataclasses.replace(fast_eval, measure=False))
    assert v.status is Status.INCORRECT, v.error
    assert "eager's own max error" in v.error


def test_output_memoized_per_tensor_is_caught(data_dir, fast_eval):
    """Fresh inputs never hit this memo; only the stateful check (same tensor, new values) does."""
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    v = _eval(task, data_dir, "cache_by_tensor", fast_eval)
    assert v.status is Status.CHEAT and v.flags == ("stale_output",), v.error
    assert "rewritten in place" in v.error
    lenient = _eval(task, data_dir, "cache_by_tensor", dataclasses.replace(fast_eval, strict=False))
    assert lenient.status is Status.INCORRECT and "stale output" in lenient.error


def test_output_memoized_by_address_fails(data_dir, fast_eval):
    """An allocator may hand a later trial a recycled address, so this memo fails either in the
    trials (incorrect) or at the stateful check (stale_output): never a pass."""
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    v = _eval(task, data_dir, "cache_by_pointer", fast_eval)
    assert v.status is Status.INCORRECT or (v.status is Status.CHEAT and "stale_output" in v.flags), v.error


def test_a_device_lock_holder_is_not_flagged(data_dir, fast_eval, tmp_path):
    """The neighbour check reads the lock's holders after the candidate has loaded: without tripping
    the sandbox (it refuses os.kill), so an honest candidate stays clean."""
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    code = (data_dir / "candidates" / "cpp_correct.py").read_text()
    v = evaluate(task, code, fast_eval, device_lock=str(tmp_path / "device-cpu"))
    assert v.status is Status.PASS and v.flags == (), v.error
