"""experiments.trust_corpus.cli without a GPU: the journal and resume, --translate-only, --report-only, and the refusal without CUDA."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest
from trust_corpus_support import FakeTeacher, FakeVerifier, make_tasks

from benchmark.extract import extract_code
from benchmark.models.replay import read_replay
from benchmark.suite import load_suite
from datasets_builder.state import Journal
from experiments.trust_corpus import cli, record, translate


def test_main_resumes_and_writes_the_table(tmp_path):
    out = tmp_path / "trust"
    teacher, verifier = FakeTeacher(), FakeVerifier()
    args = ["--levels", "1", "--out", str(out), "--quiet", "--budget-s", "60"]
    assert (
        cli.main([*args, "--limit", "3"], translator=translate.InlineTranslator(teacher), verifier=verifier)
        == 0
    )
    assert len(teacher.calls) == 3
    with open(out / "results.jsonl", "a") as f:
        f.write('{"task_id": "level1/cut_short')  # a kill in the middle of a line
    assert (
        cli.main([*args, "--limit", "5"], translator=translate.InlineTranslator(teacher), verifier=verifier)
        == 0
    )
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
    assert cli.main([*args, "--levels", "1"], translator=translate.InlineTranslator(teacher)) == 0
    assert sorted(teacher.calls) == ["level1/ok_a", "level1/ok_b", "level1/raise_it", "level1/skip_conv"]
    replay = read_replay(out / "completions.jsonl")
    assert sorted(replay) == [("level1/ok_a", 0, 1), ("level1/ok_b", 0, 1)]
    for (task_id, _, _), completion in replay.items():  # what benchmark.run will judge: the teacher's code
        assert extract_code(completion).code == f"# candidate for {task_id}\nclass ModelNew:\n    pass\n"
    rows = {r["task_id"]: r for r in Journal(out / "results.jsonl", key=lambda r: r["task_id"]).values()}
    assert rows["level1/ok_a"]["translated"] and rows["level1/ok_a"]["verdict"] == record.NOT_VERIFIED
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
    assert cli.main(args, translator=translate.InlineTranslator(teacher)) == 0
    assert len(teacher.calls) == 5 and teacher.calls[-1] == "level2/ok_c"
    assert len((out / "completions.jsonl").read_text().splitlines()) == 3
    assert sorted(read_replay(out / "completions.jsonl")) == [
        ("level1/ok_a", 0, 1),
        ("level1/ok_b", 0, 1),
        ("level2/ok_c", 0, 1),
    ]


def test_without_cuda_it_refuses_with_a_clear_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert cli.main(["--limit", "1", "--out", str(tmp_path / "trust")]) == 2
    err = capsys.readouterr().err
    assert "CUDA" in err and "--report-only" in err


def test_report_only_needs_no_gpu(tmp_path):
    out = tmp_path / "trust"
    out.mkdir()
    (out / "results.jsonl").write_text(
        json.dumps(record.Row("level1/relu_fp32", 1, True, verdict="pass").to_dict()) + "\n"
    )
    assert cli.main(["--levels", "1", "--report-only", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    level1 = len(load_suite().select(levels=[1]))
    assert summary["tried"] == 1 and len(summary["not_run"]) == level1 - 1  # every other level-1 task


def test_the_options_are_the_flags_and_the_workers_follow_the_mode():
    flags = {a.dest for a in cli.build_parser()._actions if a.dest != "help"}
    assert flags == {f.name for f in dataclasses.fields(cli.Options)}
    assert cli.Options().workers == 7 and cli.Options(workers=3).workers == 3
    assert cli.Options(translate_only=True).workers == max(1, len(os.sched_getaffinity(0)) - 2)
