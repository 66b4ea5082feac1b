"""Rejection filtering through a verifier: every candidate gets a recorded verdict, even when the
verifier or the task fails; only correct, legal candidates are kept."""

from __future__ import annotations

from concurrent.futures import Future

from builder_support import make_task

from benchmark.evaluate.harness import TaskError
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from datasets_builder.filter import RejectionFilter, kept
from datasets_builder.teachers.base import Candidate


class Failing:
    def __init__(self, error: Exception):
        self.error = error

    def submit(self, task, code, **kw):
        f: Future = Future()
        f.set_exception(self.error)
        return f


def test_verdicts_are_recorded_for_every_candidate(tmp_path, fake_verifier):
    task = make_task(tmp_path)
    seen = []
    submitted = []
    flt = RejectionFilter(
        fake_verifier,
        lambda _: task,
        lambda _: 0.5,
        lambda c, v: seen.append((c, v)),
        on_submit=submitted.append,
    )
    good = Candidate(task.task_id, "t", "class ModelNew: pass\n")
    bad = Candidate(task.task_id, "t", "class ModelNew: pass\n# BROKEN\n", sample=1)
    flt.submit(good)
    flt.submit(bad)
    assert flt.wait(timeout=10)
    assert {c.candidate_id: v.status for c, v in seen} == {
        good.candidate_id: Status.PASS,
        bad.candidate_id: Status.INCORRECT,
    }
    assert flt.counts == {"submitted": 2, "kept": 1, "rejected": 1} and len(submitted) == 2
    assert [kw for kw in fake_verifier.calls] == [(task.task_id, good.code), (task.task_id, bad.code)]


def test_task_and_verifier_failures_become_rejections(tmp_path):
    task: Task = make_task(tmp_path)
    for error, text in (
        (TaskError("reference raised"), "task error"),
        (RuntimeError("pool closed"), "verifier failure"),
    ):
        seen: list[Verdict] = []
        flt = RejectionFilter(
            Failing(error), lambda _: task, lambda _: None, lambda c, v, out=seen: out.append(v)
        )
        flt.submit(Candidate(task.task_id, "t", "code"))
        assert flt.wait(timeout=5)
        (v,) = seen
        assert v.status is Status.RUNTIME_ERROR and text in v.error and not kept(v)


def test_kept_needs_a_pass_without_flags_under_strict_rules():
    assert kept(Verdict(task_id="t", status=Status.PASS))
    assert not kept(Verdict(task_id="t", status=Status.CHEAT, flags=("torch_compute_op",)))
    assert not kept(Verdict(task_id="t", status=Status.PASS, flags=("torch_compute_op",), strict=True))
    assert kept(Verdict(task_id="t", status=Status.PASS, flags=("torch_compute_op",), strict=False))
    assert not kept(Verdict(task_id="t", status=Status.INCORRECT))
