"""scripts/trust_corpus.py without a GPU: the order, the budget stop, crash isolation, the journal and
resume, and the table, with a fake teacher (its answer depends on the task's name) and a fake
verifier. The GPU half is tests/benchmark/test_trust_gpu.py."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from benchmark.evaluate.harness import TaskError
from benchmark.extract import extract_code
from benchmark.models.replay import read_replay
from benchmark.suite import load_suite
from benchmark.task import load_task
from benchmark.verdict import Status, Verdict
from datasets_builder.state import Journal
from datasets_builder.teachers.base import Candidate, Skip

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import trust_corpus as tc  # noqa: E402

TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(8)]


def get_init_inputs():
    return []
"""


class FakeTeacher:
    """Answers by the task's name: skip_*, raise_*, sleep_* (5 s), crash_* (kills its process), else code."""

    def __init__(self, clock=None, step_s: float = 0.0):
        self.calls: list[str] = []
        self.clock, self.step_s = clock, step_s

    def propose(self, task, module):
        self.calls.append(task.task_id)
        if self.clock is not None:
            self.clock.now += self.step_s
        name = task.name
        if name.startswith("skip"):
            return [], [
                Skip(task.task_id, "inductor", "default", "extern_kernel", "extern_kernels.convolution")
            ]
        if name.startswith("raise"):
            raise ValueError("the teacher broke")
        if name.startswith("sleep"):
            time.sleep(5)
        if name.startswith("crash"):
            os._exit(3)
        return [
            Candidate(task.task_id, "inductor", f"# candidate for {task.task_id}\n", variant="default")
        ], []


def fake_teacher() -> FakeTeacher:
    return FakeTeacher()


class FakeVerifier:
    """Verdicts by the task's name: wrong_*, cheat_*, oom_* (out of memory once), hang_* (never), taskerr_*
    (the reference fails), else pass."""

    def __init__(self):
        self.submitted: list[str] = []

    def submit(self, task, code, **kw) -> Future:
        self.submitted.append(task.task_id)
        f: Future = Future()
        name = task.name
        if name.startswith("hang"):
            return f
        if name.startswith("taskerr"):
            f.set_exception(TaskError("reference failed: RuntimeError('CUDA error')"))
            return f
        if name.startswith("wrong"):
            v = Verdict(
                task.task_id,
                Status.INCORRECT,
                error='Traceback (most recent call last):\n  File "x.py"\n'
                "AssertionError: max abs err 3.1 at [0, 5]",
            )
        elif name.startswith("cheat"):
            v = Verdict(
                task.task_id,
                Status.CHEAT,
                flags=("library_kernels_dominate",),
                error="library_kernels_dominate: cuBLAS took 90% of device time",
            )
        elif name.startswith("oom") and self.submitted.count(task.task_id) == 1:
            v = Verdict(
                task.task_id, Status.RUNTIME_ERROR, error="torch.OutOfMemoryError: CUDA out of memory."
            )
        else:
            v = Verdict(task.task_id, Status.PASS, speedup=2.0)
        f.set_result(v)
        return f


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_tasks(root: Path, names: list[str], level: int = 1):
    folder = root / f"level{level}"
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / f"{n}.py").write_text(TASK)
    return [load_task(folder / f"{n}.py", root=root) for n in names]


def corpus(tmp_path, translator, verifier=None, **kw):
    kw = {"budget_s": 60.0, "reserve_s": 5.0, "poll_s": 0.05, **kw}
    journal = Journal(tmp_path / "out" / "results.jsonl", key=lambda r: r["task_id"])
    return tc.Corpus(translator, verifier or FakeVerifier(), journal, tmp_path / "out", **kw)


def test_order_is_round_robin_over_levels_and_seeded():
    tasks = list(load_suite(None).tasks)
    order = tc.order_tasks(tasks, seed=0)
    assert sorted(t.task_id for t in order) == sorted(t.task_id for t in tasks)
    assert [t.level for t in order[:8]] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert [t.task_id for t in tc.order_tasks(list(reversed(tasks)), seed=0)] == [t.task_id for t in order]
    assert [t.task_id for t in tc.order_tasks(tasks, seed=1)] != [t.task_id for t in order]
    level4 = [i for i, t in enumerate(order) if t.level == 4]
    assert level4 == [3 + 4 * k for k in range(len(level4))]  # every fourth until level 4 runs out


def test_each_outcome_becomes_one_row(tmp_path):
    tasks = make_tasks(
        tmp_path, ["ok", "skip_conv", "wrong_sum", "cheat_mm", "oom_big", "raise_it", "taskerr_ref"]
    )
    c = corpus(tmp_path, tc.InlineTranslator(FakeTeacher()))
    outcome = c.run(tasks)
    rows = {r.task_id.split("/")[1]: r for r in outcome.rows}
    assert outcome.unfinished == () and outcome.stopped is None
    assert rows["ok"].verdict == "pass" and rows["ok"].speedup == 2.0 and rows["ok"].source is None
    assert not rows["skip_conv"].translated and rows["skip_conv"].skip_reason == "extern_kernel"
    assert rows["skip_conv"].skips == ("default: extern_kernel: extern_kernels.convolution",)
    assert rows["wrong_sum"].verdict == "incorrect"
    assert rows["wrong_sum"].error == "AssertionError: max abs err 3.1 at [0, 5]"  # not the traceback header
    saved = tmp_path / "out" / rows["wrong_sum"].source
    assert saved.read_text() == "# candidate for level1/wrong_sum\n"
    record = json.loads(saved.with_name("level1__wrong_sum.verdict.json").read_text())
    assert record["verdict"] == "incorrect" and record["error"].startswith("Traceback")  # the whole error
    assert rows["cheat_mm"].verdict == "cheat" and rows["cheat_mm"].flags == ("library_kernels_dominate",)
    assert rows["oom_big"].verdict == "pass" and rows["oom_big"].attempts == 2
    assert rows["raise_it"].skip_reason == "teacher_error" and "the teacher broke" in rows["raise_it"].error
    assert rows["taskerr_ref"].verdict == "task_error" and "reference failed" in rows["taskerr_ref"].error
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["task_id"] for x in lines) == sorted(t.task_id for t in tasks)
    # every verified translation, whatever its verdict, is a replay line of its task
    replay = read_replay(tmp_path / "out" / "completions.jsonl")
    verified = {"ok", "wrong_sum", "cheat_mm", "oom_big"}
    assert {task_id.split("/")[1] for task_id, _, _ in replay} == verified
    assert replay[("level1/wrong_sum", 0, 1)] == "# candidate for level1/wrong_sum\n"


def test_tasks_the_translator_must_refuse_are_skipped_before_compiling(tmp_path):
    tasks = make_tasks(tmp_path, ["plain", "helper_block"])
    tasks[1].path.write_text(
        TASK.replace(
            "class Model(nn.Module):",
            "class Block(nn.Module):\n    pass\n\n\n"
            "class Model(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.block = Block()\n",
        )
    )
    tasks = [load_task(t.path, root=tmp_path) for t in tasks]
    assert tc.untranslatable(tasks[0]) is None
    reason, detail = tc.untranslatable(tasks[1])
    assert reason == "init" and "Block" in detail
    suite_refusals = [t for t in load_suite(None).tasks if tc.untranslatable(t)]
    assert {t.level for t in suite_refusals} <= {3, 4}  # model classes of their own, or transformers
    teacher = FakeTeacher()
    outcome = corpus(tmp_path, tc.InlineTranslator(teacher), precheck=tc.untranslatable).run(tasks)
    assert teacher.calls == ["level1/plain"]
    row = next(r for r in outcome.rows if r.task_id == "level1/helper_block")
    assert row.skip_reason == "init" and row.skips[0].startswith("static: init:")


def test_no_task_starts_near_the_budget(tmp_path):
    clock = Clock()
    tasks = make_tasks(tmp_path, [f"t{i}" for i in range(6)])
    teacher = FakeTeacher(clock, step_s=10.0)  # each translation takes 10 s of the fake clock
    outcome = corpus(tmp_path, tc.InlineTranslator(teacher), budget_s=35.0, reserve_s=10.0, clock=clock).run(
        tasks
    )
    assert teacher.calls == [t.task_id for t in tasks[:3]]  # started at 0, 10, 20; not at 30 > 35 - 10
    assert [r.task_id for r in outcome.rows] == teacher.calls
    assert outcome.unfinished == tuple(t.task_id for t in tasks[3:])
    assert "last 10 s" in outcome.stopped


def test_budget_abandons_work_in_flight(tmp_path):
    """A verification that never ends is given up at the budget; the backlog of one keeps `later` from
    starting while it waits."""
    tasks = make_tasks(tmp_path, ["ok", "hang_forever", "later"])
    t0 = time.monotonic()
    outcome = corpus(
        tmp_path, tc.InlineTranslator(FakeTeacher()), budget_s=0.6, reserve_s=0.3, backlog=1
    ).run(tasks)
    assert time.monotonic() - t0 < 5
    assert [r.task_id for r in outcome.rows] == ["level1/ok"]
    assert set(outcome.unfinished) == {"level1/hang_forever", "level1/later"}
    assert "budget" in outcome.stopped


class DyingPool:
    """A translator whose 'pool' dies when it runs a crash_* task, failing every task it holds."""

    def __init__(self, capacity: int = 3):
        self.capacity = capacity
        self.restarts = 0
        self.generation: list[Future] = []
        self.submitted: list[str] = []

    def submit(self, task) -> Future:
        f: Future = Future()
        self.generation.append(f)
        self.submitted.append(task.name)
        generation = self.generation
        if task.name.startswith("crash"):

            def die():
                for g in generation:
                    if not g.done():
                        g.set_exception(BrokenProcessPool("a worker died"))

            threading.Timer(0.05, die).start()
        else:
            threading.Timer(
                0.2,
                lambda: (
                    f.done()
                    or f.set_result({"code": "# c\n", "variant": "default", "skips": [], "seconds": 0.2})
                ),
            ).start()
        return f

    def restart(self):
        self.restarts += 1
        self.generation = []

    def close(self, kill=False):
        pass


def test_a_worker_crash_is_blamed_on_the_task_that_crashes_alone(tmp_path):
    tasks = make_tasks(tmp_path, ["a", "crash_me", "b", "c", "d"])
    pool = DyingPool(capacity=3)
    outcome = corpus(tmp_path, pool).run(tasks)
    rows = {r.task_id.split("/")[1]: r for r in outcome.rows}
    assert rows["crash_me"].skip_reason == "worker_crash" and "alone" in rows["crash_me"].error
    assert all(rows[n].verdict == "pass" for n in "abcd")  # the innocent ones in flight with it were rerun
    assert pool.restarts == 2  # once with company, once alone
    assert pool.submitted.count("crash_me") == 2


def test_main_resumes_and_writes_the_table(tmp_path):
    out = tmp_path / "trust"
    teacher, verifier = FakeTeacher(), FakeVerifier()
    args = ["--levels", "1", "--out", str(out), "--quiet", "--budget-s", "60"]
    assert tc.main([*args, "--limit", "3"], translator=tc.InlineTranslator(teacher), verifier=verifier) == 0
    assert len(teacher.calls) == 3
    with open(out / "results.jsonl", "a") as f:
        f.write('{"task_id": "level1/cut_short')  # a kill in the middle of a line
    assert tc.main([*args, "--limit", "5"], translator=tc.InlineTranslator(teacher), verifier=verifier) == 0
    assert len(teacher.calls) == 5 and len(set(teacher.calls)) == 5  # only the two new ones ran
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tried"] == 5 and summary["translated"] == 5 and summary["pass_rate"] == 1.0
    assert summary["context"]["done before this run"] == 3
    assert "| all | 5 | 5 | 0 | 5 | 100.0% |" in (out / "corpus.md").read_text()


class ModelNewTeacher(FakeTeacher):
    """FakeTeacher whose candidates define ModelNew, so that the replay lines extract as code."""

    def propose(self, task, module):
        candidates, skips = super().propose(task, module)
        return [
            dataclasses.replace(c, code=c.code + "class ModelNew:\n    pass\n") for c in candidates
        ], skips


def test_translate_only_writes_every_translation_for_replay_and_builds_no_verifier(tmp_path, monkeypatch):
    from benchmark.verify import verifier as verifier_module

    def no_verifier(*args, **kwargs):
        raise AssertionError("--translate-only built a verifier")

    monkeypatch.setattr(verifier_module.Verifier, "__init__", no_verifier)
    suite = tmp_path / "suite"
    make_tasks(suite, ["ok_a", "ok_b", "skip_conv", "raise_it"])
    make_tasks(suite, ["ok_c"], level=2)
    out = tmp_path / "trust"
    teacher = ModelNewTeacher()
    args = ["--suite", str(suite), "--out", str(out), "--quiet", "--translate-only"]
    assert tc.main([*args, "--levels", "1"], translator=tc.InlineTranslator(teacher)) == 0
    assert sorted(teacher.calls) == ["level1/ok_a", "level1/ok_b", "level1/raise_it", "level1/skip_conv"]
    replay = read_replay(out / "completions.jsonl")
    assert sorted(replay) == [("level1/ok_a", 0, 1), ("level1/ok_b", 0, 1)]
    for (task_id, _, _), completion in replay.items():  # what benchmark.run will judge: the teacher's code
        assert extract_code(completion).code == f"# candidate for {task_id}\nclass ModelNew:\n    pass\n"
    rows = {r["task_id"]: r for r in Journal(out / "results.jsonl", key=lambda r: r["task_id"]).values()}
    assert rows["level1/ok_a"]["translated"] and rows["level1/ok_a"]["verdict"] == tc.NOT_VERIFIED
    assert (
        not rows["level1/skip_conv"]["translated"]
        and rows["level1/skip_conv"]["skip_reason"] == "extern_kernel"
    )
    assert rows["level1/raise_it"]["skip_reason"] == "teacher_error"
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["translated"], summary["verified"], summary["pass_rate"]) == (2, 0, None)
    assert summary["skipped"] == {"extern_kernel": 1, "teacher_error": 1} and summary["non_pass"] == []
    assert summary["context"]["workers"] == max(1, len(os.sched_getaffinity(0)) - 2)
    md = (out / "corpus.md").read_text()
    assert "| all | 4 | 2 | 2 | not verified | not verified |" in md and "Not verified: 2 of 2" in md
    assert "## Verdicts" not in md and "## Non-pass" not in md
    # the rerun on the same OUT translates only the task it has not seen, translated or skipped
    assert tc.main(args, translator=tc.InlineTranslator(teacher)) == 0
    assert len(teacher.calls) == 5 and teacher.calls[-1] == "level2/ok_c"
    assert len((out / "completions.jsonl").read_text().splitlines()) == 3
    assert sorted(read_replay(out / "completions.jsonl")) == [
        ("level1/ok_a", 0, 1),
        ("level1/ok_b", 0, 1),
        ("level2/ok_c", 0, 1),
    ]


def test_summary_and_markdown_from_recorded_rows():
    rows = [
        tc.Row("level1/a", 1, True, verdict="pass", speedup=2.0),
        tc.Row("level1/b", 1, True, verdict="pass", speedup=0.5),
        tc.Row(
            "level2/c", 2, True, verdict="incorrect", error="max abs err 0.3 | at [1]", source="failures/c.py"
        ),
        tc.Row("level2/d", 2, False, skip_reason="extern_kernel"),
        tc.Row("level3/e", 3, False, skip_reason="extern_kernel"),
        tc.Row("level3/f", 3, False, skip_reason="timeout"),
    ]
    s = tc.summarize(rows, ["level4/g"])
    assert (s["tried"], s["translated"], s["pass"]) == (6, 3, 2)
    assert s["pass_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["skipped"] == {"extern_kernel": 2, "timeout": 1}
    assert s["verdicts"] == {"pass": 2, "incorrect": 1}
    assert s["geomean_speedup"] == pytest.approx(1.0)
    assert s["per_level"]["2"] == {"tried": 2, "translated": 1, "skipped": 1, "pass": 0, "pass_rate": 0.0}
    md = tc.render_markdown(s, {"gpu": "H200"})
    assert "| all | 6 | 3 | 3 | 2 | 66.7% |" in md
    assert "| level2/c | incorrect |  | max abs err 0.3 \\| at [1] | failures/c.py |" in md
    assert "| extern_kernel | 2 | level2/d, level3/e |" in md
    assert "level4/g" in md


def test_pass_rates_leave_out_translations_that_were_not_verified():
    rows = [
        tc.Row("level1/a", 1, True, verdict="pass", speedup=2.0),
        tc.Row("level1/b", 1, True, verdict=tc.NOT_VERIFIED),
        tc.Row("level2/c", 2, True, verdict=tc.NOT_VERIFIED),
    ]
    s = tc.summarize(rows)
    assert (s["translated"], s["verified"], s["pass"], s["pass_rate"]) == (3, 1, 1, 1.0)
    assert s["non_pass"] == [] and s["verdicts"] == {tc.NOT_VERIFIED: 2, "pass": 1}
    md = tc.render_markdown(s, {})
    assert "| 1 | 2 | 2 | 0 | 1 | 100.0% |" in md and "| 2 | 1 | 1 | 0 | not verified | not verified |" in md
    assert "Not verified: 2 of 3" in md and "## Non-pass verdicts" in md


def test_without_cuda_it_refuses_with_a_clear_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert tc.main(["--limit", "1", "--out", str(tmp_path / "trust")]) == 2
    err = capsys.readouterr().err
    assert "CUDA" in err and "--report-only" in err


def test_report_only_needs_no_gpu(tmp_path):
    out = tmp_path / "trust"
    out.mkdir()
    (out / "results.jsonl").write_text(
        json.dumps(tc.Row("level1/relu_fp32", 1, True, verdict="pass").to_dict()) + "\n"
    )
    assert tc.main(["--levels", "1", "--report-only", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tried"] == 1 and len(summary["not_run"]) == 205


@pytest.mark.slow
def test_the_process_pool_times_out_and_isolates_crashes(tmp_path):
    tasks = make_tasks(tmp_path, ["ok", "sleep_long", "crash_now", "ok_too"])
    pool = tc.PoolTranslator(2, timeout_s=1.5, factory=fake_teacher, threads_per_worker=1)
    try:
        outcome = corpus(tmp_path, pool, budget_s=240.0).run(tasks)
    finally:
        pool.close(kill=True)
    rows = {r.task_id.split("/")[1]: r for r in outcome.rows}
    assert rows["ok"].verdict == "pass" and rows["ok_too"].verdict == "pass"
    assert rows["sleep_long"].skip_reason == "timeout"
    assert rows["crash_now"].skip_reason == "worker_crash"
