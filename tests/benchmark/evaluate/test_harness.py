"""The harness on CPU: every bad-input class costs only its own sample and gets the right verdict."""

from __future__ import annotations

import dataclasses

import pytest

from benchmark.evaluate.harness import TaskError, evaluate
from benchmark.task import load_task
from benchmark.verdict import Status


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


def run(task, data_dir, name, config, **kw):
    code = (data_dir / "candidates" / f"{name}.py").read_text()
    return evaluate(task, code, config, **kw)


def test_correct_cpp_candidate_passes_with_speedup(task, data_dir, fast_eval):
    v = run(task, data_dir, "cpp_correct", fast_eval)
    assert v.status is Status.PASS, v.error
    # 3 fresh seeds, 1 alternate shape and 1 large-magnitude trial (fp32 task)
    assert v.correctness.trials == 5 and v.correctness.passed == 5
    assert v.speedup is not None and v.speedup > 0
    assert v.candidate_time.runs >= 3 and v.reference_time.runs >= 3
    # the reference is timed alone before the candidate loads, then interleaved with it
    assert v.reference_alone_time.runs >= 3 and v.reference_time.runs == v.candidate_time.runs
    assert v.speedup_spread is None or v.speedup_spread >= 0
    p = v.phases
    assert p.compile_s > 0 and p.timing_s > 0 and p.startup_s > 0 and p.reference_s > 0
    assert p.startup_s + p.reference_s + p.compile_s + p.correctness_s + p.timing_s <= p.total_s


def test_identical_code_is_built_once(task, data_dir, fast_eval):
    first = run(task, data_dir, "cpp_correct", fast_eval)
    second = run(task, data_dir, "cpp_correct", fast_eval)
    assert first.status is second.status is Status.PASS
    assert second.phases.compile_s < 5.0  # the first build (tens of seconds) is reused


def test_wrong_cpp_candidate_is_incorrect(task, data_dir, fast_eval):
    v = run(task, data_dir, "cpp_wrong", fast_eval)
    assert v.status is Status.INCORRECT
    assert v.correctness.first_failing_trial == 0
    assert "expected" in v.error and v.correctness.max_abs_err >= 0.99


def test_compile_error_is_trimmed(task, data_dir, fast_eval):
    v = run(task, data_dir, "cpp_compile_error", fast_eval)
    assert v.status is Status.COMPILE_ERROR
    assert "undefined_symbol_here" in v.error
    assert len(v.error.splitlines()) <= 41


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("segfault", Status.RUNTIME_ERROR, "SIGSEGV"),
        ("abort", Status.RUNTIME_ERROR, "SIGABRT"),
        ("raises", Status.RUNTIME_ERROR, "kernel launch failed"),
        ("syntax_error", Status.COMPILE_ERROR, "SyntaxError"),
        ("no_modelnew", Status.COMPILE_ERROR, "defines no ModelNew"),
        ("wrong_signature", Status.RUNTIME_ERROR, "TypeError"),
        ("wrong_shape", Status.INCORRECT, "shape"),
        ("wrong_dtype", Status.INCORRECT, "dtype"),
        ("nan_output", Status.INCORRECT, "non-finite"),
    ],
)
def test_bad_candidates(task, data_dir, fast_eval, name, status, needle):
    v = run(task, data_dir, name, dataclasses.replace(fast_eval, strict=False))
    assert v.status is status, v.error
    assert needle in v.error


def test_hang_times_out_in_bounded_time(task, data_dir, fast_eval):
    v = run(task, data_dir, "hang", dataclasses.replace(fast_eval, timeout_s=15.0, strict=False))
    assert v.status is Status.TIMEOUT
    assert v.phases.total_s < 25.0


def test_printed_fake_verdict_is_ignored(task, data_dir, fast_eval):
    v = run(task, data_dir, "prints_fake_verdict", dataclasses.replace(fast_eval, strict=False))
    assert v.status is Status.INCORRECT


def test_empty_code_is_no_code(task, fast_eval):
    assert evaluate(task, "", fast_eval).status is Status.NO_CODE
    assert evaluate(task, None, fast_eval).status is Status.NO_CODE


def test_broken_task_raises_task_error(data_dir, fast_eval):
    task = load_task(data_dir / "broken_task.py")
    with pytest.raises(TaskError, match="broken_task.py"):
        evaluate(task, (data_dir / "candidates" / "torch_correct.py").read_text(), fast_eval)


def test_verdict_round_trips_through_json(task, data_dir, fast_eval):
    from benchmark.verdict import Verdict

    v = run(task, data_dir, "torch_correct", dataclasses.replace(fast_eval, strict=False))
    import json

    assert Verdict.from_dict(json.loads(v.to_json())) == v


def test_a_trace_folder_gets_the_candidate_timings_rounds(task, data_dir, fast_eval, tmp_path, monkeypatch):
    """The child sends its rounds back and the parent writes them: the child's sandbox would flag a
    write outside its own folder as a cheat."""
    import json

    from benchmark.evaluate.timing import TRACE_ENV, paired_ratio

    monkeypatch.setenv(TRACE_ENV, str(tmp_path / "trace"))
    v = run(task, data_dir, "cpp_correct", fast_eval, sample=3)
    assert v.status is Status.PASS, v.error
    (path,) = (tmp_path / "trace").iterdir()
    record = json.loads(path.read_text())
    assert record["task"] == v.task_id and record["sample"] == 3
    reference, candidate = record["samples_ms"]
    assert len(reference) == len(candidate) == v.candidate_time.runs == len(record["round_starts"])
    assert record["ratio"] == pytest.approx(paired_ratio(reference, candidate))
    assert "timing_trace" not in v.env
