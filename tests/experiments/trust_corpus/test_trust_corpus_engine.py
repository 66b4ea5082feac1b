"""experiments.trust_corpus.engine with a fake teacher (its answer depends on the task's name) and a fake verifier: the order, every outcome as one row, the budget stop, crash isolation."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

from trust_corpus_support import Clock, FakeTeacher, corpus, make_tasks

from benchmark.models.replay import read_replay
from benchmark.suite import load_suite
from experiments.trust_corpus import engine, translate


def test_order_is_round_robin_over_levels_and_seeded():
    tasks = list(load_suite(None).tasks)
    order = engine.order_tasks(tasks, seed=0)
    assert sorted(t.task_id for t in order) == sorted(t.task_id for t in tasks)
    assert [t.level for t in order[:8]] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert [t.task_id for t in engine.order_tasks(list(reversed(tasks)), seed=0)] == [
        t.task_id for t in order
    ]
    assert [t.task_id for t in engine.order_tasks(tasks, seed=1)] != [t.task_id for t in order]
    level4 = [i for i, t in enumerate(order) if t.level == 4]
    assert level4 == [3 + 4 * k for k in range(len(level4))]  # every fourth until level 4 runs out


def test_each_outcome_becomes_one_row(tmp_path):
    tasks = make_tasks(
        tmp_path, ["ok", "skip_conv", "wrong_sum", "cheat_mm", "oom_big", "raise_it", "taskerr_ref"]
    )
    c = corpus(tmp_path, translate.InlineTranslator(FakeTeacher()))
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


def test_no_task_starts_near_the_budget(tmp_path):
    clock = Clock()
    tasks = make_tasks(tmp_path, [f"t{i}" for i in range(6)])
    teacher = FakeTeacher(clock, step_s=10.0)  # each translation takes 10 s of the fake clock
    outcome = corpus(
        tmp_path, translate.InlineTranslator(teacher), budget_s=35.0, reserve_s=10.0, clock=clock
    ).run(tasks)
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
        tmp_path, translate.InlineTranslator(FakeTeacher()), budget_s=0.6, reserve_s=0.3, backlog=1
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
