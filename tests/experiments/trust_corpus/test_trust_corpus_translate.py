"""experiments.trust_corpus.translate: the tasks the translator must refuse are skipped before a compile, and the process pool times out and isolates crashes."""

from __future__ import annotations

import pytest
from trust_corpus_support import TASK, FakeTeacher, corpus, fake_teacher, make_tasks

from benchmark.suite import load_suite
from benchmark.task import load_task
from experiments.trust_corpus import translate


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
    assert translate.untranslatable(tasks[0]) is None
    reason, detail = translate.untranslatable(tasks[1])
    assert reason == "init" and "Block" in detail
    suite_refusals = [t for t in load_suite(None).tasks if translate.untranslatable(t)]
    # model classes of their own, or transformers; in level 2, FP8 weights quantized by a helper
    assert {t.level for t in suite_refusals if "fp8" not in t.tags} <= {3, 4}
    teacher = FakeTeacher()
    outcome = corpus(tmp_path, translate.InlineTranslator(teacher), precheck=translate.untranslatable).run(
        tasks
    )
    assert teacher.calls == ["level1/plain"]
    row = next(r for r in outcome.rows if r.task_id == "level1/helper_block")
    assert row.skip_reason == "init" and row.skips[0].startswith("static: init:")


@pytest.mark.slow
def test_the_process_pool_times_out_and_isolates_crashes(tmp_path):
    tasks = make_tasks(tmp_path, ["ok", "sleep_long", "crash_now", "ok_too"])
    pool = translate.PoolTranslator(2, timeout_s=1.5, factory=fake_teacher, threads_per_worker=1)
    try:
        outcome = corpus(tmp_path, pool, budget_s=240.0).run(tasks)
    finally:
        pool.close(kill=True)
    rows = {r.task_id.split("/")[1]: r for r in outcome.rows}
    assert rows["ok"].verdict == "pass" and rows["ok_too"].verdict == "pass"
    assert rows["sleep_long"].skip_reason == "timeout"
    assert rows["crash_now"].skip_reason == "worker_crash"
