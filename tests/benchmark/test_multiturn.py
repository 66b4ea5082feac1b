"""Multi-turn feedback runs: a scripted model that fails, reads the harness's feedback and fixes its
answer; early stop on pass; the turn cap; per-turn metrics; resume rebuilding the conversation."""

from __future__ import annotations

import json

import pytest

import benchmark.runner as runner
from benchmark import metrics
from benchmark.evaluate.harness import EvalConfig
from benchmark.models import Backend, Completion
from benchmark.models import base as models_base
from benchmark.multiturn import open_samples, per_turn_metrics
from benchmark.runner import RunConfig, SamplingParams, run
from benchmark.verdict import Status, Verdict

TASK = """import torch
import torch.nn as nn

SOLBENCH = {"level": 1}


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(16, 16)]


def get_init_inputs():
    return []
"""


def answer(factor: int) -> str:
    return (
        "<think>Doubling is elementwise.</think>\nHere is my kernel:\n```python\nimport torch\n\n\n"
        f"class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x * {factor}\n```\n"
    )


class ScriptedBackend(Backend):
    """Each sample follows a script: "fix" answers wrongly, then correctly once it has seen
    feedback; "prose" never writes code; "error" fails in the backend itself."""

    name = "scripted"
    uses_prompts = True

    def __init__(self, script: list[str]):
        self.script = script
        self.requests = []

    def generate(self, requests):
        for req in requests:
            self.requests.append(req)
            role = self.script[req.sample]
            if role == "fix":
                yield Completion(
                    req, answer(2 if req.turn > 1 else 3), prompt_tokens=50, completion_tokens=20
                )
            elif role == "prose":
                yield Completion(
                    req, "I do not know how to write this kernel.", prompt_tokens=50, completion_tokens=9
                )
            else:
                yield Completion(req, "", error="request timed out after 600 s (9 attempts)")


@pytest.fixture
def scripted(monkeypatch, request):
    backend = ScriptedBackend(getattr(request, "param", ["fix", "prose", "error"]))
    monkeypatch.setitem(models_base.BACKENDS, "scripted", lambda arg, **kw: backend)
    return backend


@pytest.fixture
def suite(tmp_path):
    path = tmp_path / "suite" / "level1" / "double.py"
    path.parent.mkdir(parents=True)
    path.write_text(TASK)
    return tmp_path / "suite"


def config(tmp_path, suite, turns=3, samples=3) -> RunConfig:
    # Plain-PyTorch answers, judged without anti-cheat rules and timing: fast and C++-free.
    fast = EvalConfig(device="cpu", trials=1, measure=False, strict=False, cache_dir=tmp_path / "cache")
    return RunConfig(
        model="scripted",
        out=tmp_path / "run",
        suite=str(suite),
        eval=fast,
        progress=False,
        turns=turns,
        sampling=SamplingParams(samples=samples),
    )


def records(tmp_path, name="results.jsonl"):
    return [json.loads(line) for line in (tmp_path / "run" / name).read_text().splitlines()]


def test_fail_feedback_fix_and_stop(tmp_path, suite, scripted, monkeypatch):
    summary = run(config(tmp_path, suite))
    got = {(r["sample"], r["turn"]): r["verdict"] for r in records(tmp_path)}
    assert got == {
        (0, 1): "incorrect",
        (0, 2): "pass",  # fixed after feedback; no third turn
        (1, 1): "no_code",
        (1, 2): "no_code",
        (1, 3): "no_code",  # stopped by the turn cap
        (2, 1): "no_code",  # a backend failure gets no feedback turn
    }
    asked = {(r.sample, r.turn): r for r in scripted.requests}
    assert set(asked) == set(got)

    # The second turn carries the first answer (reasoning dropped) and the harness's findings on it.
    first, second = asked[(0, 1)].messages, asked[(0, 2)].messages
    assert [m["role"] for m in first] == ["system", "user"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[:2] == first
    assert second[2]["content"].startswith("Here is my kernel:") and "<think>" not in second[2]["content"]
    feedback = second[3]["content"]
    assert "does not match the reference" in feedback and "0 of 2 checks passed" in feedback  # + large inputs
    assert "max absolute error" in feedback and "attempt 2 of 3" in feedback
    third = asked[(1, 3)].messages
    assert (
        len(third) == 6 and "No usable code" in third[5]["content"] and "last attempt" in third[5]["content"]
    )

    turns = summary["turns"]
    assert [turns[t]["pass_rate"] for t in ("1", "2", "3")] == [
        0.0,
        pytest.approx(1 / 3),
        pytest.approx(1 / 3),
    ]
    assert [turns[t]["evaluated"] for t in ("1", "2", "3")] == [3, 2, 1]
    assert summary["metrics"]["overall"]["avg_at_k"] == pytest.approx(1 / 3)
    assert summary["usage"] == {
        "prompt_tokens": 250,
        "completion_tokens": 67,
        "completions": 6,
        "from_cache": 0,
    }
    assert "after turn: 1: pass 0.000" in runner.format_table(summary)
    # Timing is off: after turn 1 nothing is correct (fast_1 is known, 0); from turn 2 a correct sample
    # has no speedup, so fast_1 was not measured.
    assert [turns[t]["fast_1"] for t in ("1", "2", "3")] == [0.0, None, None]
    assert "2: pass 0.333 fast_1 n/m (2 evaluated)" in runner.format_table(summary)

    # Rerunning resumes: nothing is generated or evaluated again.
    scripted.requests.clear()
    monkeypatch.setattr(
        runner.Verifier, "submit_request", lambda *a, **k: pytest.fail("re-evaluated a finished turn")
    )
    again = run(config(tmp_path, suite))
    assert scripted.requests == []
    assert again["turns"] == summary["turns"]


@pytest.mark.parametrize("scripted", [["prose", "prose"]], indirect=True)
def test_resume_rebuilds_the_conversation(tmp_path, suite, scripted):
    cfg = config(tmp_path, suite, samples=2)
    run(cfg)
    original = {(r.sample, r.turn): r.messages for r in scripted.requests}
    # A kill before the last turn's verdict was written: drop it, and run again.
    results = tmp_path / "run" / "results.jsonl"
    kept = [
        line
        for line in results.read_text().splitlines()
        if not ('"sample": 1' in line and '"turn": 3' in line)
    ]
    results.write_text("\n".join(kept) + "\n")
    scripted.requests.clear()
    run(cfg)
    assert [(r.sample, r.turn) for r in scripted.requests] == [(1, 3)]
    assert scripted.requests[0].messages == original[(1, 3)]


@pytest.mark.parametrize("scripted", [["prose", "error"]], indirect=True)
def test_a_later_run_with_another_turn_cap_is_refused(tmp_path, suite, scripted):
    """The feedback prompt names the cap ("attempt 2 of 3", "your last attempt"), so records made
    under one cap and turns planned under another would mix two experiments."""
    run(config(tmp_path, suite, turns=1, samples=2))
    assert {(r.sample, r.turn) for r in scripted.requests} == {(0, 1), (1, 1)}
    scripted.requests.clear()
    with pytest.raises(ValueError, match="holds a run with turns=1, not 3"):
        run(config(tmp_path, suite, turns=3, samples=2))
    assert scripted.requests == []


def test_replay_turns_without_prompts(tmp_path, suite):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"task_id": "level1/double", "sample": 0, "turn": 1, "completion": "no idea"},
                {"task_id": "level1/double", "sample": 0, "turn": 2, "completion": "still no idea"},
            ]
        )
    )
    cfg = RunConfig(**{**config(tmp_path, suite, turns=2, samples=1).__dict__, "model": f"replay:{replay}"})
    summary = run(cfg)
    assert [(r["turn"], r["verdict"]) for r in records(tmp_path)] == [(1, "no_code"), (2, "no_code")]
    assert [c["text"] for c in records(tmp_path, "completions.jsonl")] == ["no idea", "still no idea"]
    assert "usage" not in summary  # replay reports no token counts


def test_turns_must_be_positive(tmp_path, suite):
    with pytest.raises(ValueError, match="turns must be at least 1"):
        config(tmp_path, suite, turns=0)


def turn_verdict(task: str, sample: int, turn: int, ok: bool, speedup: float | None = None) -> Verdict:
    status = Status.PASS if ok else Status.INCORRECT
    speedup = speedup if ok else None
    return Verdict(task_id=task, sample=sample, turn=turn, level=1, status=status, speedup=speedup)


def test_per_turn_metrics_count_broken_tasks_and_leave_untimed_fast_1_unknown():
    verdicts = [
        turn_verdict("a", 0, 1, False),
        turn_verdict("a", 0, 2, True),
        turn_verdict("a", 1, 1, True, speedup=1.5),
    ]
    timed = per_turn_metrics(verdicts, (1,), broken=["b"], samples_per_task=2)
    # a broken task counts as 2 failed samples at every turn, as in the overall metrics
    assert [timed[t]["pass_rate"] for t in ("1", "2")] == [0.25, 0.5]
    assert timed["2"]["pass_rate"] == metrics.compute(verdicts, (1,), ["b"], 2).fast_p[0.0]
    # turn 2's correct sample has no speedup: it is left out of fast_1's denominator, not counted slow
    assert [timed[t]["fast_1"] for t in ("1", "2")] == [0.25, pytest.approx(1 / 3)]
    untimed = per_turn_metrics([turn_verdict("a", 0, 1, True)], (1,))
    assert untimed["1"]["fast_1"] is None and untimed["1"]["pass_rate"] == 1.0


def test_a_slot_generated_again_after_a_kill_keeps_one_line(tmp_path):
    from benchmark.multiturn import CompletionLog, CompletionRecord

    log = CompletionLog(tmp_path)
    log.append(CompletionRecord("level1/a", 0, 1, "first"))
    log.append(CompletionRecord("level1/b", 0, 1, "other"))
    resumed = CompletionLog(tmp_path)  # the verdict of level1/a was never recorded: it is generated again
    resumed.append(CompletionRecord("level1/a", 0, 1, "first", cached=True))
    resumed.append(CompletionRecord("level1/a", 0, 1, "first", cached=True))
    lines = [json.loads(line) for line in (tmp_path / "completions.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["cached"]) for r in lines] == [("level1/a", True), ("level1/b", False)]
    assert CompletionLog(tmp_path).get("level1/a", 0, 1).cached


def test_open_samples_go_on_after_an_unfinished_turn_only():
    judged = {
        ("a", 0, 1): Verdict(task_id="a", sample=0, status=Status.PASS, flags=("x",)),
        ("a", 1, 1): Verdict(task_id="a", sample=1, status=Status.INCORRECT),
        ("a", 2, 1): Verdict(task_id="a", sample=2, status=Status.INCORRECT),
        ("a", 2, 2): Verdict(task_id="a", sample=2, turn=2, status=Status.INCORRECT),
    }
    assert list(open_samples(1, ["a"], 4, judged)) == [("a", 3)]
    assert list(open_samples(2, ["a"], 4, judged)) == [("a", 1)]
    assert list(open_samples(2, ["a"], 4, judged, finished=lambda v: not v.flags and v.correct)) == [
        ("a", 0),
        ("a", 1),
    ]
